"""How the tools show the user's things to the model: each domain's own `as_data` (the one
representation the export and the forms use too), names and ids, never an email.

Lists are capped (MAX_ITEMS) so a large account cannot flood a prompt.
"""

MAX_ITEMS = 100


def capped(rows, view):
    shown = [view(row) for row in rows[:MAX_ITEMS]]
    return {"items": shown, "total": len(rows), "truncated": len(rows) > MAX_ITEMS}


def held(as_data, routines_using):
    """A routine item's view: its data and the routines that hold it (`routines_using`: id -> names)."""
    return lambda row: {**as_data(row), "in_routines": routines_using.get(row.id, [])}
