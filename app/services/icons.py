"""The icon catalogue every entity with an icon draws from.

Line icons come from the vendored Feather sprite (MIT); emoji add warmth where Feather has
nothing. Ids are stable strings: a Feather id ("book") or "emoji-<name>". Unknown or empty ids
resolve to DEFAULT, so a stale or invented id (from an old client or a model) never breaks a page.
"""

from functools import cache

from flask_babel import lazy_gettext as _l

DEFAULT = "star"

GROUPS = {
    "health": (
        _l("Health and body"),
        "activity heart droplet thermometer sun moon sunrise sunset coffee wind umbrella cloud cloud-rain "
        "cloud-snow cloud-drizzle cloud-lightning life-buoy zap battery-charging battery eye smile meh frown "
        "emoji-run emoji-swim emoji-bike emoji-yoga emoji-lift emoji-walk emoji-apple emoji-salad emoji-water "
        "emoji-sleep emoji-tooth emoji-pill emoji-meditate emoji-stretch",
    ),
    "mind": (
        _l("Mind and learning"),
        "book book-open bookmark feather pen-tool edit edit-2 edit-3 type file-text clipboard layers cpu "
        "globe compass map aperture award hash percent divide help-circle info "
        "emoji-brain emoji-books emoji-graduation emoji-language emoji-puzzle emoji-microscope emoji-abacus",
    ),
    "work": (
        _l("Work and money"),
        "briefcase calendar clock watch inbox mail send archive folder file database server monitor "
        "terminal code git-branch bar-chart bar-chart-2 pie-chart trending-up trending-down dollar-sign "
        "credit-card shopping-bag shopping-cart package truck printer phone smartphone tablet tool table "
        "sliders target flag check-square list grid layout columns "
        "emoji-laptop emoji-money emoji-chart emoji-handshake emoji-rocket",
    ),
    "home": (
        _l("Home and chores"),
        "home key lock unlock box trash-2 scissors droplet thermometer wifi tv speaker radio camera "
        "image film music headphones mic "
        "emoji-broom emoji-laundry emoji-cook emoji-plant emoji-dog emoji-cat emoji-bed emoji-shower",
    ),
    "people": (
        _l("People and relationships"),
        "users user user-plus user-check message-circle message-square phone-call gift heart smile thumbs-up "
        "share-2 at-sign bell "
        "emoji-family emoji-friends emoji-love emoji-party emoji-hug emoji-call emoji-baby",
    ),
    "leisure": (
        _l("Leisure and creativity"),
        "music headphones film camera image play-circle pen-tool feather anchor map-pin navigation compass "
        "star gift coffee sun moon "
        "emoji-guitar emoji-paint emoji-game emoji-travel emoji-beach emoji-camping emoji-chess emoji-movie "
        "emoji-photo emoji-dance emoji-garden",
    ),
    "spirit": (
        _l("Spirit and reflection"),
        "sunrise moon star feather heart eye wind compass award "
        "emoji-pray emoji-candle emoji-journal emoji-sparkles emoji-lotus emoji-rainbow",
    ),
    "general": (
        _l("General"),
        "check check-circle circle square triangle hexagon octagon plus-circle repeat refresh-cw rotate-cw "
        "shuffle zap bookmark tag paperclip link flag bell alert-circle settings power crosshair",
    ),
}

EMOJI = {
    "run": "🏃", "swim": "🏊", "bike": "🚴", "yoga": "🧘", "lift": "🏋️", "walk": "🚶", "apple": "🍎",
    "salad": "🥗", "water": "💧", "sleep": "😴", "tooth": "🪥", "pill": "💊", "meditate": "🧘‍♀️",
    "stretch": "🤸", "brain": "🧠", "books": "📚", "graduation": "🎓", "language": "🗣️", "puzzle": "🧩",
    "microscope": "🔬", "abacus": "🧮", "laptop": "💻", "money": "💰", "chart": "📈", "handshake": "🤝",
    "rocket": "🚀", "broom": "🧹", "laundry": "🧺", "cook": "🍳", "plant": "🪴", "dog": "🐕", "cat": "🐈",
    "bed": "🛏️", "shower": "🚿", "family": "👪", "friends": "🧑‍🤝‍🧑", "love": "❤️", "party": "🎉",
    "hug": "🤗", "call": "📞", "baby": "👶", "guitar": "🎸", "paint": "🎨", "game": "🎮", "travel": "✈️",
    "beach": "🏖️", "camping": "🏕️", "chess": "♟️", "movie": "🎬", "photo": "📷", "dance": "💃",
    "garden": "🌻", "pray": "🙏", "candle": "🕯️", "journal": "📓", "sparkles": "✨", "lotus": "🪷",
    "rainbow": "🌈",
}  # fmt: skip


def _catalogue():
    ordered = {}
    for group, (_label, ids) in GROUPS.items():
        for icon_id in ids.split():
            ordered.setdefault(icon_id, group)
    return ordered


ICON_GROUP = _catalogue()  # icon id -> the first life area it is listed under


def is_known(icon_id):
    return icon_id in ICON_GROUP


def resolve(icon_id):
    """`icon_id` when it is in the catalogue, else DEFAULT."""
    return icon_id if icon_id in ICON_GROUP else DEFAULT


def emoji_for(icon_id):
    """The character of an emoji id, or None for a line icon."""
    return EMOJI.get(icon_id.removeprefix("emoji-")) if icon_id.startswith("emoji-") else None


def grouped():
    """[(group key, label, [icon ids])] for pickers, each id listed once, in catalogue order."""
    by_group = {}
    for icon_id, group in ICON_GROUP.items():
        by_group.setdefault(group, []).append(icon_id)
    return [(key, label, by_group.get(key, [])) for key, (label, _ids) in GROUPS.items()]


@cache
def catalogue_for_prompt():
    """A compact "area: ids" listing, for the assistant's prompt."""
    return "\n".join(f"{key}: {', '.join(ids)}" for key, _label, ids in grouped())
