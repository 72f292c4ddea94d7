"""The domain: one module per domain. Every write to the database happens in here.

Service functions take the acting user first, load rows only through that user, validate,
write, and announce the domains that changed (app.events). They never touch the request,
the session or templates, so pages, agent tools, the wizard and the CLI call them alike.
"""
