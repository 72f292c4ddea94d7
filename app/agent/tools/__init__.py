"""The assistant's tools, one module per domain; importing this package registers them all.

Which modules hold tools is declared once, in each domain's `tools` (app/domains.py).
"""

from importlib import import_module

from app import domains

for _name in dict.fromkeys(module for domain in domains.DOMAINS for module in domain.tools):
    import_module(f"{__name__}.{_name}")
