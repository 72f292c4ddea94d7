"""The privacy page: what leaves Beyou, to whom, on what legal basis, and how to take it back.

Every statement is read from the running configuration: the chain's line-up and blocklist
(app/llm/settings.py, as the chain was built at boot), the export sections and the tables left
out of them (app/domains.py), the outbound calls outside the chain (the notebook's embeddings
and source search, from their settings). Nothing here is a hand-kept copy of those lists; the
one table kept here is the data-protection facts of each provider the catalogue knows, and
tests/privacy/test_statements.py fails when a provider is added to the catalogue without them.
"""

import ipaddress
from dataclasses import dataclass
from urllib.parse import urlsplit

from flask import Blueprint, current_app
from flask_babel import lazy_gettext as _l

from app import domains
from app.llm import current_chain
from app.llm.settings import CATALOGUE, PRODUCTION_BLOCKED
from app.web.rendering import render_page

bp = Blueprint("privacy", __name__)

EEA = _l("Within the EEA: no transfer outside it")
DPF = _l("EU-US Data Privacy Framework")
NO_ADEQUACY = _l("None: no adequacy decision covers China")
UNITED_STATES = _l("United States")
CHINA = _l("China")


@dataclass(frozen=True)
class Protection:
    """Where a provider is established and the legal basis for sending it a turn (the
    controller is established in Portugal, so a provider outside the EEA is a transfer)."""

    provider: object
    established: object
    basis: object
    allowed_in_production: bool


PROTECTION = {
    "mistral": Protection("Mistral AI", _l("France"), EEA, True),
    "gemini": Protection("Google Gemini", UNITED_STATES, DPF, True),
    "nvidia": Protection("NVIDIA", UNITED_STATES, DPF, True),
    "glm": Protection("Z.ai (GLM)", CHINA, NO_ADEQUACY, False),
    "deepseek": Protection("DeepSeek", CHINA, NO_ADEQUACY, False),
    "local": Protection(
        _l("A model server run by this site's operator"),
        _l("Wherever the operator runs it"),
        _l("No third party: the operator's own server"),
        True,
    ),
}
"""Each catalogue link's data-protection facts (the design's data-protection table)."""


@dataclass(frozen=True)
class OutsideTheChain:
    """An outbound call that does not go through the chain, so the blocklist does not govern it."""

    label: object
    setting: str  # the app.config key naming where it goes
    key_setting: str  # the app.config key whose value turns it on
    default_host: object  # what the privacy policy names for it
    service: str | None = None  # the SOURCE_SEARCH it is, when it is one of the source searches


OUTSIDE_THE_CHAIN = (
    OutsideTheChain(
        _l("The study notebook's embeddings (the text of your sources' passages, and your questions to the tutor)"),
        "EMBEDDINGS_BASE_URL",
        "EMBEDDINGS_API_KEY",
        "Mistral AI",
    ),
    OutsideTheChain(
        _l("The study notebook's source search on the web (only the words you type in it)"),
        "SOURCE_SEARCH_BASE_URL",
        "SOURCE_SEARCH_API_KEY",
        "Tavily",
        service="tavily",
    ),
    OutsideTheChain(
        _l(
            "The study notebook's source search on the web, by Google Gemini with Google Search (only the "
            "words you type in it)"
        ),
        "SOURCE_SEARCH_GEMINI_BASE_URL",
        "SOURCE_SEARCH_GEMINI_API_KEY",
        "Google Gemini",
        service="gemini",
    ),
)


@dataclass(frozen=True)
class ProviderLine:
    name: str
    protection: Protection
    state: str  # "chain", "blocked", "skipped" or "unused"
    position: int | None = None  # 1-based place in the chain
    model: str | None = None
    pinned: bool = False  # blocked by committed code in production, not only by the environment


def providers(chain):
    """Every provider the catalogue knows, those in the chain first and in its order."""
    settings = chain.settings
    in_chain = [link.name for link in settings.links]
    lines = [
        ProviderLine(link.name, PROTECTION[link.name], "chain", position, link.model)
        for position, link in enumerate(settings.links, start=1)
    ]
    production = settings.environment == "production"
    for name in CATALOGUE:
        if name in in_chain:
            continue
        if name in settings.blocked:
            state = "blocked"
        elif name in settings.skipped:
            state = "skipped"
        else:
            state = "unused"
        lines.append(ProviderLine(name, PROTECTION[name], state, pinned=production and name in PRODUCTION_BLOCKED))
    return lines


def outbound_elsewhere(config):
    """The calls outside the chain, each with the host it reaches here (None: not configured,
    which is when it has no key, whatever its address says); of the source searches, the one
    SOURCE_SEARCH chooses."""
    return [(call, urlsplit(config[call.setting]).hostname if config.get(call.key_setting) else None)
            for call in OUTSIDE_THE_CHAIN
            if call.service in (None, config.get("SOURCE_SEARCH"))]  # fmt: skip


def kept_here(chain, elsewhere):
    """Where the assistant's words go when no provider receives any: "machine" when every link of
    the chain is the operator's own model server on this machine, "network" on their private
    network; None when a provider is in the chain, or a call outside it is configured."""
    if not chain.configured or any(host for _call, host in elsewhere):
        return None
    places = {_place(link) for link in chain.settings.links}
    if None in places:
        return None
    return "network" if "network" in places else "machine"


def _place(link):
    if link.name != "local":
        return None
    host = urlsplit(link.base_url or "").hostname or ""
    if host == "localhost":
        return "machine"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None  # a name: where it resolves is not the settings' to say
    if address.is_loopback:
        return "machine"
    return "network" if address.is_private else None


EXPORT_SECTION_NAMES = {
    "routines": _l("Routines, with their sections and entries"),
    "schedule": _l("Which routine runs on which day"),
    "day_outcomes": _l("How each day ended"),
    "entry_checks": _l("Every check and skip"),
    "xp_days": _l("The experience points of each day"),
    "habits": _l("Habits"),
    "tasks": _l("Tasks"),
    "categories": _l("Categories"),
    "goals": _l("Goals and their progress"),
    "notebook": _l("The study notebook's topics and pages"),
    "notebook_blocks": _l("What the notebook's pages hold: notes, diagrams and flashcards"),
    "study_board": _l("The study board's concepts and their connections"),
    "notebook_sources": _l("The sources added to the notebook"),
    "study_tutor": _l("Your questions to the tutor and its answers"),
    "study_outputs": _l("Summaries and guides made from your sources"),
    "study_card_drafts": _l("Flashcard drafts"),
    "study_cycles": _l("Study cycles, with their days, subjects and blocks"),
    "study_sessions": _l("Study sessions"),
    "ideas": _l("Ideas board notes, archived ones included"),
    "mood": _l("Mood levels and your private journal"),
    "focus": _l("Focus mode steps and timer cycles"),
    "profile": _l("Your profile and settings"),
    "feedback": _l("The feedback you sent"),
    "assistant": _l("Conversations with the assistant"),
}
"""What each export section holds, as a person names it (the file's own keys are for programs);
tests/privacy/test_page.py fails when a domain declares a section without a name here."""


def export_sections():
    """The sections of the downloaded file, in its order, as the domains declare them: (key, name)."""
    return [(section, EXPORT_SECTION_NAMES[section]) for domain in domains.DOMAINS for section in domain.export]


@bp.get("/privacy")
def index():
    """Readable signed in or out: sign-up links here before there is an account."""
    chain = current_chain()
    elsewhere = outbound_elsewhere(current_app.config)
    return render_page(
        "privacy/page.html",
        providers=providers(chain),
        chain=chain,
        kept_here=kept_here(chain, elsewhere),
        production=chain.settings.environment == "production",
        elsewhere=elsewhere,
        sections=export_sections(),
    )
