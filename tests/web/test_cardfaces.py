"""The diagrams' card pictures (app/casebook/cardfaces.py) are the web's (cards.js), byte for byte."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from kartludo.app.casebook.cardfaces import FRENCH_DECK, HIDDEN, JX_DECK, card_markup

CARDS_JS = Path(__file__).resolve().parents[2] / "web" / "static" / "js" / "cards.js"


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js to run cards.js")
def test_every_card_drawn_as_the_web_draws_it(tmp_path: Path) -> None:
    module = tmp_path / "cards.mjs"
    module.write_text(CARDS_JS.read_text(encoding="utf-8"), encoding="utf-8")
    codes = sorted(set(JX_DECK) | set(FRENCH_DECK)) + [HIDDEN, "Z9"]
    script = (f"import {{ cardMarkup }} from {json.dumps(module.as_uri())};\n"
              f"const codes = {json.dumps(codes)};\n"
              "const out = {};\n"
              "for (const c of codes) out[c] = [cardMarkup(c), cardMarkup(c, { small: true })];\n"
              "console.log(JSON.stringify(out));\n")
    run = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True)
    web = json.loads(run.stdout)
    for code in codes:
        assert card_markup(code) == web[code][0], code
        assert card_markup(code, small=True) == web[code][1], code
