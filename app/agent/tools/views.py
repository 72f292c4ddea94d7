"""How the tools show the user's things to the model: small JSON, names and ids, no email.

Lists are capped (MAX_ITEMS) so a large account cannot flood a prompt.
"""

MAX_ITEMS = 100


def capped(rows, view):
    shown = [view(row) for row in rows[:MAX_ITEMS]]
    return {"items": shown, "total": len(rows), "truncated": len(rows) > MAX_ITEMS}


def category_ref(category):
    return {"id": str(category.id), "name": category.name}


def category(row):
    return {
        "id": str(row.id),
        "name": row.name,
        "description": row.description,
        "icon": row.icon,
        "xp": round(row.xp or 0, 1),
        "level": row.level,
    }


def habit(row, routines=None):
    view = {
        "id": str(row.id),
        "name": row.name,
        "description": row.description,
        "motivation": row.motivation,
        "icon": row.icon,
        "importance": row.importance,
        "difficulty": row.difficulty,
        "categories": [category_ref(c) for c in row.categories],
        "xp": round(row.xp or 0, 1),
        "level": row.level,
        "current_streak": row.current_streak,
        "best_streak": row.best_streak,
    }
    if routines is not None:
        view["in_routines"] = routines.get(row.id, [])
    return view


def task(row, routines=None):
    view = {
        "id": str(row.id),
        "name": row.name,
        "description": row.description,
        "icon": row.icon,
        "importance": row.importance,
        "difficulty": row.difficulty,
        "one_time": row.one_time,
        "categories": [category_ref(c) for c in row.categories],
        "current_streak": row.current_streak,
    }
    if routines is not None:
        view["in_routines"] = routines.get(row.id, [])
    return view


def goal(row):
    return {
        "id": str(row.id),
        "name": row.name,
        "description": row.description,
        "motivation": row.motivation,
        "icon": row.icon,
        "target_value": row.target_value,
        "current_value": row.current_value,
        "unit": row.unit,
        "start_date": row.start_date.isoformat(),
        "end_date": row.end_date.isoformat(),
        "term": str(row.term),
        "status": str(row.status),
        "parent_id": str(row.parent_id) if row.parent_id else None,
        "archived": row.archived_at is not None,
        "categories": [category_ref(c) for c in row.categories],
    }
