"""Laugavatnsmanni's heuristic bot (the invariants every game keeps are in
``test_games_properties.py``; Laugavatnsmanni's are in ``gamespecs/laugavatnsmanni.py``)."""

from __future__ import annotations

from kartludo.engine.laugavatnsmanni.bots import HeuristicBot


def test_heuristic_bot_ducks_in_nullo_and_wins_cheaply_otherwise():
    bot = HeuristicBot()
    v = {"contract": "nullo", "trump": None, "trick": [{"card": "9S"}, {"card": "QS"}]}
    assert bot._play(["KS", "JS", "4S"], ["KS", "JS", "4S"], v) == "JS"  # the highest card under QS
    v = {"contract": "nullo", "trump": None, "trick": [{"card": "9S"}]}
    assert bot._play(["AH", "2C"], ["AH", "2C"], v) == "AH"  # void: discard the most dangerous card
    v = {"contract": "hearts", "trump": "H", "trick": [{"card": "9S"}, {"card": "QS"}]}
    assert bot._play(["KS", "AS", "4S"], ["KS", "AS", "4S"], v) == "KS"  # last to play: the cheapest winner
    v = {"contract": "hearts", "trump": "H", "trick": [{"card": "9S"}, {"card": "QS"}]}
    assert bot._play(["3H", "KH", "2C"], ["3H", "KH", "2C"], v) == "3H"  # void: ruff low
