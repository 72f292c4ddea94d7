"""Which tool specs one model round carries: the core, the page's toolsets, and what was opened.

Every round re-sends its tool specs, and a free key's tokens-per-minute quota is shared by every
user of the app, so the tool list is cut to what the turn needs (docs/agent-tools.md):

- the core tools (`@tool(core=True)`: the two memory notes and `openToolsets`), on every round;
- the toolsets of the page the message was sent from (`Toolset.pages`: navigation area slugs, the
  pages of a domain reached elsewhere like /focus for Focus mode, or a path under an area like
  notebook/cycles; the most specific match wins, so the study cycles page carries the cycles'
  tools, not the notebook's), less their tools that follow a read (`follows_a_read`);
- every toolset opened by a call still in the request's messages, whole: `openToolsets(toolsets=["goals"])`,
  or a call to any tool of that toolset. The call stays in the turn's transcript, so a toolset opened
  in one round is carried by every later round of the turn (and by the next turns of the chat
  while the call is in their 20-message window).

A toolset is a domain: `Tool.domain` is what tools are grouped by. The first round therefore
grows with the page's own domain, never with the catalogue: `openToolsets` names toolsets, not
tools.

Each tool of a round carries its tier (`tiers_for`), which is how a link with a small window or a
`max_tools` cuts the list (app/llm/windows.py): the core always goes, the opened toolsets go
first, then the page's.
"""

from dataclasses import dataclass

from app.agent.registry import REGISTRY
from app.domains import DOMAINS
from app.llm.windows import CORE, OPENED, PAGE

DISCOVERY = "openToolsets"


@dataclass(frozen=True)
class Toolset:
    domain: str  # the `Tool.domain` of its tools
    summary: str | None  # what `openToolsets` offers (English: the model reads it); None: core only
    pages: tuple[str, ...] = ()  # page paths (an area's slug, or deeper) whose turns carry it from the first round


def _own_pages(domain):
    """Where a domain's turns start: its navigation area, or — for a domain reached from
    elsewhere, like Focus mode at /focus/<entry> — its own pages, named after it."""
    if (area := domain.navigation_area) is not None:
        return [area.slug]
    return [domain.name] if domain.toolset else []


TOOLSETS = {
    domain.name: Toolset(domain.name, domain.toolset, pages=(*_own_pages(domain), *domain.toolset_also_on))
    for domain in DOMAINS
    if domain.has_tools
}
"""One toolset per domain with tools, declared with the domain (`Domain.toolset`, app/domains.py)."""


def area_of(page):
    """The navigation area a page path belongs to ("/habits/3/edit" → habits, "/notebook/pages/7" → notebook)."""
    parts = (page or "").split("?", 1)[0].strip("/").split("/")
    return parts[0] or None


def page_toolsets(page):
    """The toolsets named by the page's most specific path: "/notebook/cycles/3" is the study
    cycles' page (notebook/cycles), "/notebook/pages/7" the notebook's."""
    path = (page or "").split("?", 1)[0].strip("/")
    named = {named for toolset in TOOLSETS.values() for named in toolset.pages}
    matches = [named for named in named if path == named or path.startswith(named + "/")]
    if not matches:
        return set()
    deepest = max(matches, key=lambda named: named.count("/"))
    return {toolset.domain for toolset in TOOLSETS.values() if deepest in toolset.pages}


def opened(messages):
    """The toolsets a call in `messages` opened (by `openToolsets`, or by calling one of its tools)."""
    domains = set()
    for message in messages:
        for call in message.tool_calls:
            if call.name == DISCOVERY:
                domains.update(named_toolsets(call.arguments))
            elif (called := REGISTRY.get(call.name)) is not None:
                domains.add(called.domain)
    return domains


def named_toolsets(arguments):
    """The known toolset names in an `openToolsets` call's arguments (as the model sent them)."""
    names = (arguments or {}).get("toolsets")
    if not isinstance(names, list):
        return set()
    return {name for name in names if isinstance(name, str) and name in TOOLSETS}


def tiers_for(page, messages):
    """The tools of the next round with their tiers, in registry order (the same tools always
    come in one order): the core (CORE), the page's toolsets less what follows a read (PAGE), and
    every opened toolset whole (OPENED, for what the page does not carry already)."""
    on_the_page, domains = page_toolsets(page), opened(messages)
    tiered = []
    for candidate in REGISTRY.values():
        if candidate.core:
            tiered.append((candidate, CORE))
        elif candidate.domain in on_the_page and not candidate.follows_a_read:
            tiered.append((candidate, PAGE))
        elif candidate.domain in domains:
            tiered.append((candidate, OPENED))
    return tiered


def tools_for(page, messages):
    return [tool for tool, _tier in tiers_for(page, messages)]


def specs_for(page, messages):
    return [tool.spec for tool in tools_for(page, messages)]


OFFERED = tuple(toolset for toolset in TOOLSETS.values() if toolset.summary)
