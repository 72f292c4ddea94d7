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


# What each icon shows, in words: the picker's labels (and what a screen reader says).
LABELS = {
    "activity": _l("Pulse"),
    "heart": _l("Heart"),
    "droplet": _l("Drop"),
    "thermometer": _l("Thermometer"),
    "sun": _l("Sunshine"),
    "moon": _l("Moon"),
    "sunrise": _l("Sunrise"),
    "sunset": _l("Sunset"),
    "coffee": _l("Coffee"),
    "wind": _l("Wind"),
    "umbrella": _l("Umbrella"),
    "cloud": _l("Cloud"),
    "cloud-rain": _l("Rain"),
    "cloud-snow": _l("Snow"),
    "cloud-drizzle": _l("Drizzle"),
    "cloud-lightning": _l("Storm"),
    "life-buoy": _l("Life buoy"),
    "zap": _l("Lightning"),
    "battery-charging": _l("Charging battery"),
    "battery": _l("Battery"),
    "eye": _l("Eye"),
    "smile": _l("Smile"),
    "meh": _l("Neutral face"),
    "frown": _l("Frown"),
    "emoji-run": _l("Running"),
    "emoji-swim": _l("Swimming"),
    "emoji-bike": _l("Cycling"),
    "emoji-yoga": _l("Yoga"),
    "emoji-lift": _l("Weightlifting"),
    "emoji-walk": _l("Walking"),
    "emoji-apple": _l("Apple"),
    "emoji-salad": _l("Salad"),
    "emoji-water": _l("Water"),
    "emoji-sleep": _l("Sleep"),
    "emoji-tooth": _l("Toothbrush"),
    "emoji-pill": _l("Pill"),
    "emoji-meditate": _l("Meditation"),
    "emoji-stretch": _l("Stretching"),
    "book": _l("Book"),
    "book-open": _l("Open book"),
    "bookmark": _l("Bookmark"),
    "feather": _l("Feather"),
    "pen-tool": _l("Pen"),
    "edit": _l("Notepad"),
    "edit-2": _l("Pencil"),
    "edit-3": _l("Writing"),
    "type": _l("Text"),
    "file-text": _l("Document"),
    "clipboard": _l("Clipboard"),
    "layers": _l("Layers"),
    "cpu": _l("Chip"),
    "globe": _l("Globe"),
    "compass": _l("Compass"),
    "map": _l("Map"),
    "aperture": _l("Aperture"),
    "award": _l("Award"),
    "hash": _l("Hash"),
    "percent": _l("Percent"),
    "divide": _l("Divide"),
    "help-circle": _l("Question"),
    "info": _l("Information"),
    "emoji-brain": _l("Brain"),
    "emoji-books": _l("Books"),
    "emoji-graduation": _l("Graduation"),
    "emoji-language": _l("Languages"),
    "emoji-puzzle": _l("Puzzle"),
    "emoji-microscope": _l("Microscope"),
    "emoji-abacus": _l("Abacus"),
    "briefcase": _l("Briefcase"),
    "calendar": _l("Calendar"),
    "clock": _l("Clock"),
    "watch": _l("Watch"),
    "inbox": _l("Inbox"),
    "mail": _l("Mail"),
    "send": _l("Send"),
    "archive": _l("Archive box"),
    "folder": _l("Folder"),
    "file": _l("File"),
    "database": _l("Database"),
    "server": _l("Server"),
    "monitor": _l("Monitor"),
    "terminal": _l("Terminal"),
    "code": _l("Code"),
    "git-branch": _l("Branch"),
    "bar-chart": _l("Bar chart"),
    "bar-chart-2": _l("Columns chart"),
    "pie-chart": _l("Pie chart"),
    "trending-up": _l("Trending up"),
    "trending-down": _l("Trending down"),
    "dollar-sign": _l("Dollar"),
    "credit-card": _l("Credit card"),
    "shopping-bag": _l("Shopping bag"),
    "shopping-cart": _l("Shopping cart"),
    "package": _l("Package"),
    "truck": _l("Truck"),
    "printer": _l("Printer"),
    "phone": _l("Phone"),
    "smartphone": _l("Smartphone"),
    "tablet": _l("Tablet"),
    "tool": _l("Tool"),
    "table": _l("Table"),
    "sliders": _l("Sliders"),
    "target": _l("Target"),
    "flag": _l("Flag"),
    "check-square": _l("Checkbox"),
    "list": _l("List"),
    "grid": _l("Grid"),
    "layout": _l("Layout"),
    "columns": _l("Columns"),
    "emoji-laptop": _l("Laptop"),
    "emoji-money": _l("Money"),
    "emoji-chart": _l("Chart"),
    "emoji-handshake": _l("Handshake"),
    "emoji-rocket": _l("Rocket"),
    "home": _l("Home"),
    "key": _l("Key"),
    "lock": _l("Lock"),
    "unlock": _l("Unlocked"),
    "box": _l("Box"),
    "trash-2": _l("Trash"),
    "scissors": _l("Scissors"),
    "wifi": _l("Wi-Fi"),
    "tv": _l("TV"),
    "speaker": _l("Speaker"),
    "radio": _l("Radio"),
    "camera": _l("Camera"),
    "image": _l("Picture"),
    "film": _l("Film"),
    "music": _l("Music"),
    "headphones": _l("Headphones"),
    "mic": _l("Microphone"),
    "emoji-broom": _l("Broom"),
    "emoji-laundry": _l("Laundry"),
    "emoji-cook": _l("Cooking"),
    "emoji-plant": _l("Plant"),
    "emoji-dog": _l("Dog"),
    "emoji-cat": _l("Cat"),
    "emoji-bed": _l("Bed"),
    "emoji-shower": _l("Shower"),
    "users": _l("People"),
    "user": _l("Person"),
    "user-plus": _l("Add person"),
    "user-check": _l("Person checked"),
    "message-circle": _l("Chat"),
    "message-square": _l("Message"),
    "phone-call": _l("Phone call"),
    "gift": _l("Gift"),
    "thumbs-up": _l("Thumbs up"),
    "share-2": _l("Share"),
    "at-sign": _l("At sign"),
    "bell": _l("Bell"),
    "emoji-family": _l("Family"),
    "emoji-friends": _l("Friends"),
    "emoji-love": _l("Love"),
    "emoji-party": _l("Party"),
    "emoji-hug": _l("Hug"),
    "emoji-call": _l("Call"),
    "emoji-baby": _l("Baby"),
    "play-circle": _l("Play"),
    "anchor": _l("Anchor"),
    "map-pin": _l("Map pin"),
    "navigation": _l("Navigation"),
    "star": _l("Star"),
    "emoji-guitar": _l("Guitar"),
    "emoji-paint": _l("Painting"),
    "emoji-game": _l("Video game"),
    "emoji-travel": _l("Travel"),
    "emoji-beach": _l("Beach"),
    "emoji-camping": _l("Camping"),
    "emoji-chess": _l("Chess"),
    "emoji-movie": _l("Movie"),
    "emoji-photo": _l("Photo"),
    "emoji-dance": _l("Dance"),
    "emoji-garden": _l("Sunflower"),
    "emoji-pray": _l("Prayer"),
    "emoji-candle": _l("Candle"),
    "emoji-journal": _l("Journal"),
    "emoji-sparkles": _l("Sparkles"),
    "emoji-lotus": _l("Lotus"),
    "emoji-rainbow": _l("Rainbow"),
    "check": _l("Check"),
    "check-circle": _l("Check circle"),
    "circle": _l("Circle"),
    "square": _l("Square"),
    "triangle": _l("Triangle"),
    "hexagon": _l("Hexagon"),
    "octagon": _l("Octagon"),
    "plus-circle": _l("Plus"),
    "repeat": _l("Repeat"),
    "refresh-cw": _l("Refresh"),
    "rotate-cw": _l("Rotate"),
    "shuffle": _l("Shuffle"),
    "tag": _l("Tag"),
    "paperclip": _l("Paperclip"),
    "link": _l("Link"),
    "alert-circle": _l("Alert"),
    "settings": _l("Gear"),
    "power": _l("Power"),
    "crosshair": _l("Crosshair"),
}


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


def label_for(icon_id):
    """The icon's name in the reader's language (its id, for one without a label)."""
    return LABELS.get(icon_id, icon_id)


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
