"""A match's write path: creating it, the command pipeline (load, decide, append,
retry), its snapshots, its deals' fairness, the table's automatic deals, bots playing
whole matches, and ``verify``'s re-fold."""
