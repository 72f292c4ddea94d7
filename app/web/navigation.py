"""The app's areas, in the order the navigation shows them: each domain's `area` as declared in
app/domains.py (a domain reached elsewhere has none here).

On phones the bottom bar holds the daily areas and a "More" sheet holds every other
one, so each area is reachable on any screen.
"""

from app import domains

AREAS = tuple(domain.navigation_area for domain in domains.DOMAINS if domain.navigation_area)

BY_SLUG = {area.slug: area for area in AREAS}
