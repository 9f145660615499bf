"""Duplicate play: the same boards (a deck each) at many tables, each table's result on
a board compared only with the other tables' results on it (``boards``: the event, its
tables' matches and when a board is hidden; ``scores``: travellers and standings)."""
