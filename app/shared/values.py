"""Reading what people type, strictly: numbers, days and times either mean exactly one thing or
are refused. Nothing is guessed from a prefix ("07:00junk"), a digit separator ("1_000"), a
decimal comma the language does not use ("1,5" in English) or a year nobody means (1, 9999).
"""

import math
import re
import unicodedata
from datetime import date, time

from babel import Locale
from babel.numbers import NumberFormatError, parse_decimal

# Days outside these years are typing mistakes, and near year 1 or 9999 date arithmetic
# (a calendar's previous month, a strip of days) leaves Python's range.
FIRST_DAY = date(1900, 1, 1)
LAST_DAY = date(2100, 12, 31)
# The largest amount a goal may count to: far past any real target, and still exact and finite
# after a percentage, a sum or an export.
NUMBER_MAX = 1_000_000_000_000

_MACHINE_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")  # what number inputs and JSON send
_WHOLE_NUMBER = re.compile(r"[0-9]{1,18}")  # never too long for int(), whatever the limit
_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_MONTH = re.compile(r"([0-9]{4})-([0-9]{2})")
_CLOCK = re.compile(r"([0-9]{1,2}):([0-9]{2})(?::([0-9]{2}))?")


def number_from(value, language="en"):
    """A finite float from a number, or from text written the browser's way ("1234.5") or the
    way `language` writes numbers ("1,234.5" in English, "1.234,5" in Portuguese); None when it
    is neither (booleans, "1_000", "1e5", "inf", "1,5" in English)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        number = float(value)
        return number if math.isfinite(number) else None
    text = str(value).strip()
    if _MACHINE_NUMBER.fullmatch(text):
        return float(text)
    symbols = Locale.parse(language if language in ("en", "pt") else "en").number_symbols["latn"]
    allowed = re.escape(symbols["group"] + symbols["decimal"])
    if not re.fullmatch(rf"-?[0-9][0-9{allowed}]*", text):
        return None
    try:
        number = float(parse_decimal(text, locale=language, strict=True))
    except (NumberFormatError, ValueError):
        return None
    return number if math.isfinite(number) else None


def whole_number_from(value, largest):
    """A whole number from 0 to `largest`, from an int or from ASCII digits ("7", " 12 "); None
    for anything else. `str.isdigit()` is no test for this: it says yes to "²", which int()
    refuses, and to "١", which no form of ours sends; and int() refuses more than 4,300 digits."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        number = value
    else:
        text = str(value).strip()
        if not _WHOLE_NUMBER.fullmatch(text):
            return None
        number = int(text)
    return number if 0 <= number <= largest else None


def day_from(value):
    """A date from a date or an ISO "YYYY-MM-DD" between FIRST_DAY and LAST_DAY; None otherwise."""
    if isinstance(value, date):
        day = value if type(value) is date else date(value.year, value.month, value.day)
    elif _DAY.fullmatch(str(value or "").strip()):
        try:
            day = date.fromisoformat(str(value).strip())
        except ValueError:
            return None
    else:
        return None
    return day if FIRST_DAY <= day <= LAST_DAY else None


def month_from(value):
    """The first day of an ISO "YYYY-MM" month between FIRST_DAY and LAST_DAY; None otherwise."""
    found = _MONTH.fullmatch(str(value or "").strip())
    if not found or not 1 <= int(found.group(2)) <= 12:
        return None
    return day_from(f"{found.group(1)}-{found.group(2)}-01")


def clock_from(value):
    """A time of day from "H:MM", "HH:MM" or "HH:MM:SS" (seconds dropped); None otherwise."""
    if isinstance(value, time):
        return value.replace(second=0, microsecond=0)
    found = _CLOCK.fullmatch(str(value or "").strip())
    if not found:
        return None
    hour, minute, second = int(found.group(1)), int(found.group(2)), int(found.group(3) or 0)
    if hour > 23 or minute > 59 or second > 59:
        return None
    return time(hour, minute)


def folded(text):
    """A name as compared: letter case, accents and spacing do not make two names different."""
    plain = unicodedata.normalize("NFKD", " ".join(str(text).split())).casefold()
    return "".join(character for character in plain if not unicodedata.combining(character))
