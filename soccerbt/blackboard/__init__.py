"""BT.CPP scoped blackboards, remapping rules, the script language and the key schema.

Imports nothing else of soccerbt and knows nothing of soccer except the key schema.
"""
