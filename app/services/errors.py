"""The one family of refusals the domain raises.

`key` is a stable UPPER_SNAKE code: the UI translates it, the agent's tools hand it to the
model, and tests assert it. The HTTP status comes from the subclass, so a route never picks one.
"""

from flask_babel import lazy_gettext as _l

MESSAGES = {
    # generic
    "NOT_FOUND": _l("We couldn't find that. It may have been deleted."),
    "INVALID_INPUT": _l("Some fields need your attention."),
    "FORBIDDEN": _l("You don't have access to this page."),
    "RATE_LIMITED": _l("Too many requests. Please wait a moment and try again."),
    "CSRF_FAILED": _l("Your form expired. Reload the page and try again."),
    "TEXT_HAS_NUL": _l("Text can't contain the NUL character (U+0000). Remove it and try again."),
    "TEXT_TOO_LARGE": _l("That is more text than Beyou accepts at once. Shorten it and try again."),
    # accounts
    "NAME_INVALID": _l("Enter a name between 2 and 256 characters."),
    "EMAIL_INVALID": _l("Enter a valid email address."),
    "EMAIL_TAKEN": _l("An account with this email already exists. Try signing in."),
    "PASSWORD_TOO_SHORT": _l("Use at least 8 characters."),
    "PASSWORD_TOO_LONG": _l("Use at most 256 characters."),
    "PASSWORD_TOO_COMMON": _l("This password is too common. Pick one that is harder to guess."),
    "LANGUAGE_INVALID": _l("Choose English or Portuguese."),
    "TIMEZONE_INVALID": _l("Choose a valid time zone."),
    "INVALID_CREDENTIALS": _l("Email or password is incorrect."),
    "LOGIN_LOCKED": _l("Too many failed attempts for this email. Sign-in is paused for %(minutes)s minutes."),
    "RESET_LINK_INVALID": _l("This reset link is invalid or has already been used."),
    "RESET_LINK_EXPIRED": _l("This reset link has expired. Ask for a new one."),
    # the assistant
    "CHAT_NOT_FOUND": _l("We couldn't find that conversation. It may have been deleted."),
    "CHAT_TITLE_INVALID": _l("Give the conversation a title."),
    "TURN_NOT_FOUND": _l("We couldn't find that answer."),
    "MESSAGE_EMPTY": _l("Write a message first."),
    "MESSAGE_TOO_LONG": _l("Messages can have at most 4000 characters."),
    "NOTE_TOO_LONG": _l("This note has %(length)s characters; the limit is %(limit)s. Shorten it and save again."),
    "AI_UNAVAILABLE": _l("The assistant couldn't reach any AI model right now. Try again in a minute."),
    "AI_STREAM_INTERRUPTED": _l(
        "The answer was cut off by the AI provider. What arrived is kept below; ask again to continue."
    ),
    "AI_NOT_CONFIGURED": _l("The assistant isn't configured on this server yet: no AI provider has an API key."),
    "TOO_MANY_STREAMS": _l("You already have two answers in progress. Wait for one to finish, then send again."),
    "TRANSCRIPT_PERSIST_FAILED": _l(
        "The answer couldn't be saved, so it may be missing when you come back. "
        "Anything the assistant changed is shown above."
    ),
    "TIMEOUT": _l("The answer took too long and was stopped. What arrived is kept."),
    "TURN_CANCELLED": _l("Stopped."),
    "TURN_FAILED": _l("Something went wrong while answering. What arrived is kept."),
    "TURN_INTERRUPTED": _l(
        "The answer was interrupted: the server restarted while writing it. What arrived, and anything "
        "the assistant did, is kept below; ask again to continue."
    ),
    "AGENT_RATE_LIMITED": _l("You've sent a lot of messages this hour. You can send again at %(time)s."),
    "AGENT_BUDGET_SPENT": _l(
        "You've sent a lot of messages this hour, so this one was not answered. Send it again later."
    ),
    # categories, habits, tasks, goals, configuration, export, feedback, icons
    "TEXT_TOO_LONG": _l("Use at most 256 characters."),
    "SCALE_INVALID": _l("Choose a value from 1 to 5."),
    "EXPERIENCE_INVALID": _l("Choose beginner, intermediate or advanced."),
    "CATEGORIES_REQUIRED": _l("Choose at least one category."),
    "CATEGORY_NOT_FOUND": _l("We couldn't find that category. It may have been deleted."),
    "CATEGORY_AMBIGUOUS": _l("More than one category is called “%(ref)s”: %(candidates)s. Use its id."),
    "CATEGORY_IN_USE": _l("This category is used in: %(uses)s. Remove it from them first."),
    "HABIT_NOT_FOUND": _l("We couldn't find that habit. It may have been deleted."),
    "HABIT_AMBIGUOUS": _l("More than one habit is called “%(ref)s”: %(candidates)s. Use its id."),
    "HABIT_IN_ROUTINE": _l("This habit is used in: %(routines)s. Remove it from the routine first."),
    "TASK_NOT_FOUND": _l("We couldn't find that task. It may have been deleted."),
    "TASK_AMBIGUOUS": _l("More than one task is called “%(ref)s”: %(candidates)s. Use its id."),
    "TASK_IN_ROUTINE": _l("This task is used in: %(routines)s. Remove it from the routine first."),
    "GOAL_NOT_FOUND": _l("We couldn't find that goal. It may have been deleted."),
    "GOAL_AMBIGUOUS": _l("More than one goal matches “%(ref)s”: %(candidates)s. Use its exact name or id."),
    "GOAL_CYCLE": _l("A goal can't go under one of its own sub-goals."),
    "GOAL_SELF_PARENT": _l("A goal can't go under itself."),
    "GOAL_PARENT_ARCHIVED": _l("This goal is archived. Restore it before putting goals under it."),
    "GOAL_STATUS_INVALID": _l("Choose Not started or In progress; use Complete on the goal to finish it."),
    "TARGET_INVALID": _l("Enter a target of at least 0.01."),
    "UNIT_INVALID": _l("Enter a unit of 1 to 64 characters."),
    "VALUE_INVALID": _l("Enter a number of zero or more."),
    "AMOUNT_INVALID": _l("Enter an amount greater than zero."),
    "VALUE_TOO_LARGE": _l("Use a number no larger than 1,000,000,000,000."),
    "DATE_INVALID": _l("Enter a valid date (YYYY-MM-DD) between 1900 and 2100."),
    "DATES_OUT_OF_ORDER": _l("The end date can't be before the start date."),
    "TERM_INVALID": _l("Choose short, medium or long term."),
    "THEME_INVALID": _l("Choose light, dark or system."),
    "CONSTANCE_MODE_INVALID": _l("Choose any completed item or complete routine only."),
    "XP_DECAY_INVALID": _l("Choose gradual, flat or time window."),
    "WIDGET_UNKNOWN": _l("One of these widgets doesn't exist."),
    "WIDGET_DUPLICATE": _l("Each widget can appear only once."),
    "SETTING_UNKNOWN": _l("This is not a setting you can change."),
    "PASSWORD_INCORRECT": _l("That password is not right."),
    "CONFIRMATION_MISMATCH": _l("Type the word exactly as shown to confirm."),
    "FEEDBACK_KIND_INVALID": _l("Choose bug, suggestion or other."),
    "FEEDBACK_TEXT_INVALID": _l("Write between 5 and 4000 characters."),
    "FEEDBACK_STATUS_INVALID": _l("Choose new, triaged, done or won't do."),
    "FEEDBACK_NOT_FOUND": _l("We couldn't find that feedback."),
    # routines, schedules, today, checks, streaks, constance, day close, history
    "ROUTINE_NOT_FOUND": _l("We couldn't find that routine. It may have been deleted."),
    "ROUTINE_AMBIGUOUS": _l("More than one routine is called “%(ref)s”: %(candidates)s. Use its id."),
    "ROUTINE_NAME_REQUIRED": _l("Give the routine a name."),
    "ROUTINE_NAME_TOO_LONG": _l("Use at most 256 characters."),
    "ROUTINE_SECTION_REQUIRED": _l("A routine needs at least one section."),
    "ROUTINE_SECTION_NAME_REQUIRED": _l("Give the section a name."),
    "ROUTINE_SECTION_START_REQUIRED": _l("Choose when the section starts."),
    "ROUTINE_SECTION_NOT_FOUND": _l("We couldn't find that section in this routine."),
    "LIST_ROUTINE_HAS_NO_SECTIONS": _l("A list routine has no sections: add habits and tasks to the list itself."),
    "LIST_ROUTINE_HAS_NO_TIMES": _l("Items of a list routine have no times."),
    "TIME_INVALID": _l("Enter a time as HH:MM."),
    "ITEM_END_BEFORE_START": _l("The end time must be after the start time."),
    "ITEM_START_OUT_OF_SECTION": _l("The start time must be within the section's time."),
    "ITEM_END_OUT_OF_SECTION": _l("The end time must be within the section's time."),
    "ENTRY_ITEM_REQUIRED": _l("Choose one habit or one task."),
    "ENTRY_NOT_FOUND": _l("We couldn't find that routine entry. It may have been removed."),
    "ENTRY_ID_REQUIRED": _l(
        "“%(name)s” is a habit or task, not a routine entry. Check or skip it through its entry id: %(entries)s."
    ),
    "ITEM_NOT_IN_ROUTINE": _l("“%(name)s” is not in any routine. Add it to a routine to check it."),
    "ENTRY_NOT_ON_DAY": _l("This item was not part of that day's routine."),
    "CHECK_IN_FUTURE": _l("You can't check a day that hasn't happened yet."),
    "SKIP_IN_FUTURE": _l("You can't skip a day that hasn't happened yet."),
    "DAY_IN_FUTURE": _l("That day hasn't happened yet."),
    "WEEKDAY_INVALID": _l("Choose days from Monday to Sunday."),
    "HISTORY_OWNER_INVALID": _l("History is kept for habits, tasks, routines and your account."),
    "XP_HISTORY_DAYS_INVALID": _l("Choose from 1 to 90 days."),
    "HISTORY_RANGE_INVALID": _l("Choose a start on or before the end, and an end no later than tomorrow."),
}


class DomainError(Exception):
    """A refusal with a stable key, a translated message and optional per-field keys.

    `details` maps a form field (or argument name) to the key of what is wrong with it.
    `params` fill the message's placeholders.
    """

    status = 400

    def __init__(self, key, details=None, **params):
        super().__init__(key)
        self.key = key
        self.details = details or {}
        self.params = params

    @property
    def message(self):
        template = MESSAGES.get(self.key)
        return str(template) % self.params if template is not None else self.key

    @property
    def field_messages(self):
        return {field: message_for(key) for field, key in self.details.items()}

    def to_dict(self):
        """The shape a tool result or a JSON answer carries."""
        return {"error": self.key, "message": self.message, "details": self.field_messages}


class NotFound(DomainError):
    status = 404

    def __init__(self, key="NOT_FOUND", **params):
        super().__init__(key, **params)


class Invalid(DomainError):
    status = 422


class Conflict(DomainError):
    status = 409


class Forbidden(DomainError):
    status = 403


class Throttled(DomainError):
    status = 429


def message_for(key, **params):
    template = MESSAGES.get(key)
    return str(template) % params if template is not None else key
