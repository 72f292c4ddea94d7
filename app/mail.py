"""A small pluggable mail sender: the log in development, SMTP when BEYOU_SMTP_HOST is set.

Senders keep what they sent in `outbox` (bounded), which is how tests and the development
log read the reset links.
"""

import logging
import smtplib
from collections import deque
from email.message import EmailMessage

from flask import current_app

log = logging.getLogger("beyou.mail")


class LogMailSender:
    def __init__(self):
        self.outbox = deque(maxlen=100)

    def send(self, message: EmailMessage):
        self.outbox.append(message)
        log.info("mail to %s: %s\n%s", message["To"], message["Subject"], message.get_content())


class SmtpMailSender(LogMailSender):
    def __init__(self, host, port, username, password, starttls):
        super().__init__()
        self.host, self.port = host, port
        self.username, self.password, self.starttls = username, password, starttls

    def send(self, message: EmailMessage):
        with smtplib.SMTP(self.host, self.port, timeout=15) as smtp:
            if self.starttls:
                smtp.starttls()
            if self.username:
                smtp.login(self.username, self.password or "")
            smtp.send_message(message)
        self.outbox.append(message)


def init_app(app):
    cfg = app.config
    if cfg.get("SMTP_HOST"):
        sender = SmtpMailSender(
            cfg["SMTP_HOST"],
            cfg["SMTP_PORT"],
            cfg["SMTP_USERNAME"],
            cfg["SMTP_PASSWORD"],
            cfg["SMTP_STARTTLS"],
        )
    else:
        sender = LogMailSender()
    app.extensions["mail"] = sender


def send_mail(to, subject, body):
    message = EmailMessage()
    message["From"] = current_app.config["MAIL_FROM"]
    message["To"] = to
    message["Subject"] = subject
    message.set_content(body)
    current_app.extensions["mail"].send(message)
