"""What a viewer sees of a match: the match reader every read path goes through
(``reader``), the JSON shapes it answers in (``presenters``) and a deal replayed step by
step (``replay``). The policy it applies is ``app.visibility``."""
