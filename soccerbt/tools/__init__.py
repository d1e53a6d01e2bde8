"""Tools that observe a match: the pygame viewer, replay, batch runs, tree rendering."""
