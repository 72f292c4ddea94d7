"""The onboarding assistant: a new account says in its own words what it wants, step by step, and
writes what it keeps through the categories, habits, tasks, routines and goals services.
"""

from flask_babel import lazy_gettext as _l

from app.domains import Domain, Elsewhere

DOMAIN = Domain(
    "onboarding",
    Elsewhere("where a new account lands, /onboarding; opened again from the configuration page"),
    not_exported={"onboarding_runs": "the wizard's working state; what it created is exported with its own domain"},
    errors={
        "ONBOARDING_SAID_TOO_LONG": _l("Use at most 1000 characters to describe what you want."),
        "ONBOARDING_FINISHED": _l("The setup assistant is finished. Open it again from the configuration page."),
        "ONBOARDING_STEP_CHANGED": _l("This step has moved on, maybe on another device. Here is where it is now."),
        "ONBOARDING_NOTHING_CHOSEN": _l("Keep at least one suggestion, or go on without adding any."),
        "ONBOARDING_RATE_LIMITED": _l(
            "The setup assistant has made many suggestions this hour. Try again at %(time)s, or add things "
            "yourself on their pages."
        ),
        "ONBOARDING_AI_NOT_CONFIGURED": _l(
            "The setup assistant needs an AI model, and none is set up on this server yet, so it cannot "
            "suggest anything. Everything it would add, you can add on the app's pages."
        ),
        "ONBOARDING_AI_TOO_SLOW": _l(
            "The setup assistant took more than %(seconds)s seconds to answer, so we stopped waiting. Try again, "
            "or add things yourself."
        ),
        "ONBOARDING_ANSWER_UNUSABLE": _l(
            "The setup assistant's answer could not be used. Try again, or add things yourself."
        ),
        "ONBOARDING_WRITE_REFUSED": _l("“%(name)s” could not be saved: %(reason)s"),
    },
)
