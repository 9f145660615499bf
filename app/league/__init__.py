"""Beyond one match: time-limited series and the league's standings."""
