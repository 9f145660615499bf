"""Penalty rulings after the fact: appeals and TD decisions, rechecks against today's
engine, and the hearing (annotations and the room the TD leads)."""

#: what a penalty ruling's status may be
RULING_STATUSES = ["standing", "appealed", "upheld", "overturned"]
#: what an audit entry's may be (``decision``: a claim or levu voided without a penalty)
AUDIT_STATUSES = [*RULING_STATUSES, "decision"]
