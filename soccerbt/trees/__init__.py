"""The XML engine: lenient BT.CPP v4 parsing with line numbers, includes, the factory that
builds py_trees from XML, SubTree remapping, and TreeNodesModel export.

Our own shipped trees live in xml/ (package data). Knows nothing of soccer.
"""
