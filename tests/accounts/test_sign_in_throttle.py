"""Failed sign-ins make the next attempts wait, twice as long each time and five minutes at most,
and never lock anyone out: once a wait is over, a right password gets in. Time passes on a
clock the throttle reads, so no test sleeps."""

import time

import pytest

from app.profile import sign_in_throttle
from app.shared.errors import Throttled
from tests.conftest import PASSWORD, csrf_token_from

HOME, OFFICE, ELSEWHERE = "198.51.100.7", "203.0.113.20", "192.0.2.99"


class Clock:
    def __init__(self):
        self.now = float(int(time.time()))  # whole seconds: the waits compare exactly

    def __call__(self):
        return self.now

    def advance(self, seconds):
        self.now += seconds


@pytest.fixture
def clock(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(sign_in_throttle, "clock", clock)
    return clock


def from_address(app, address):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def sign_in(client, email="ana@example.com", password=PASSWORD):
    token = csrf_token_from(client.get("/login"))
    return client.post("/login", data={"email": email, "password": password, "csrf_token": token})


def fail(client, times, email="ana@example.com"):
    for _ in range(times):
        assert sign_in(client, email, password="wrong guess!").status_code == 422


def fail_patiently(client, clock, times, email="ana@example.com"):
    """`times` wrong passwords, each sent once its wait is over."""
    for _ in range(times):
        response = sign_in(client, email, password="wrong guess!")
        if response.status_code == 429:
            clock.advance(waits(response))
            response = sign_in(client, email, password="wrong guess!")
        assert response.status_code == 422


def waits(response):
    assert response.status_code == 429, response.status_code
    return int(response.headers["Retry-After"])


def test_the_right_password_after_eleven_wrong_ones_gets_in_once_its_short_wait_is_over(app, clock, user_id):
    office = from_address(app, OFFICE)
    fail_patiently(office, clock, 11)
    refused = sign_in(office)
    assert waits(refused) == 4
    assert "Sign-in is paused for 4 seconds: try again after that." in refused.get_data(as_text=True)
    clock.advance(4)
    assert sign_in(office).status_code == 302
    assert office.get("/dashboard").status_code == 200


def test_past_ten_failures_each_attempt_waits_twice_as_long_as_the_last(app, clock, user_id):
    office = from_address(app, OFFICE)
    fail(office, 10)
    seen = []
    for _ in range(5):
        seen.append(waits(sign_in(office, password="wrong guess!")))  # refused unchecked: not counted
        clock.advance(seen[-1] - 1)
        assert waits(sign_in(office)) == 1  # not yet, even with the right password
        clock.advance(1)
        fail(office, 1)
    assert seen == [2, 4, 8, 16, 32]


def test_no_wait_is_longer_than_five_minutes_however_long_the_guessing_goes_on(app, clock, user_id):
    office = from_address(app, OFFICE)
    fail(office, 10)
    for _ in range(15):
        clock.advance(waits(sign_in(office)))
        fail(office, 1)
    assert waits(sign_in(office)) == 300
    clock.advance(300)
    assert sign_in(office).status_code == 302


def test_an_attempt_still_waiting_costs_no_password_check(app, clock, user_id, monkeypatch):
    office = from_address(app, OFFICE)
    fail(office, 10)
    checked = []
    monkeypatch.setattr("app.profile.accounts._password_matches", lambda *args: checked.append(args))
    assert waits(sign_in(office)) == 2
    assert checked == []


def test_a_right_password_forgets_the_failures_from_its_address(app, clock, user_id):
    office = from_address(app, OFFICE)
    fail(office, 9)
    assert sign_in(office).status_code == 302
    office = from_address(app, OFFICE)
    fail(office, 9)  # nine more, none of them waiting


def test_an_address_that_signed_in_before_never_waits_for_guesses_from_elsewhere(app, clock, user_id):
    home = from_address(app, HOME)
    assert sign_in(home).status_code == 302
    guesser = from_address(app, ELSEWHERE)
    fail(guesser, 10)
    assert waits(sign_in(guesser, password="another guess")) == 2
    assert sign_in(from_address(app, HOME)).status_code == 302


def test_guesses_from_many_addresses_make_a_new_address_wait_a_little_for_the_account(app, clock, user_id):
    """The per-account count: each address tried once, so no address's own count is reached."""
    for n in range(10):
        fail(from_address(app, f"192.0.2.{n}"), 1)
    new_address = from_address(app, "192.0.2.200")
    assert waits(sign_in(new_address)) == 2
    clock.advance(2)
    assert sign_in(new_address).status_code == 302


def test_guesses_at_other_accounts_from_an_address_never_keep_out_a_user_who_signed_in_there(
    app, clock, user_id, other_user_id
):
    assert sign_in(from_address(app, OFFICE)).status_code == 302
    guesser = from_address(app, OFFICE)
    for n in range(30):
        fail(guesser, 1, email=f"colleague{n}@example.com")
    assert waits(sign_in(guesser, email="colleague30@example.com")) == 2  # the address's own count
    assert sign_in(from_address(app, OFFICE)).status_code == 302  # Ana signed in here before
    bruno = from_address(app, OFFICE)
    clock.advance(waits(sign_in(bruno, email="bruno@example.com")))  # Bruno never did: a short wait
    assert sign_in(bruno, email="bruno@example.com").status_code == 302


def test_the_waits_read_the_same_for_an_email_without_an_account(app, clock, user_id):
    fail_patiently(from_address(app, OFFICE), clock, 11)
    known = sign_in(from_address(app, OFFICE), password="wrong guess!")
    fail_patiently(from_address(app, ELSEWHERE), clock, 11, email="nobody@example.com")
    unknown = sign_in(from_address(app, ELSEWHERE), email="nobody@example.com", password="wrong guess!")
    assert waits(known) == waits(unknown) == 4
    assert "paused for 4 seconds" in unknown.get_data(as_text=True)


def test_once_a_wait_is_over_one_attempt_at_a_time_is_checked(app, clock, user_id):
    fail(from_address(app, OFFICE), 10)
    clock.advance(2)
    with app.test_request_context():
        first = sign_in_throttle.Attempt("ana@example.com", OFFICE).begin()
        with pytest.raises(Throttled) as second:
            sign_in_throttle.Attempt("ana@example.com", OFFICE).begin()
        assert second.value.params["seconds"] == 1
        first.failed()
        clock.advance(4)
        sign_in_throttle.Attempt("ana@example.com", OFFICE).begin()


def test_the_wait_is_said_in_the_language_of_the_page(app, clock):
    office = from_address(app, OFFICE)
    fail(office, 10, email="rui@example.com")
    token = csrf_token_from(office.get("/login", headers={"Accept-Language": "pt-BR"}))
    refused = office.post(
        "/login",
        data={"email": "rui@example.com", "password": PASSWORD, "csrf_token": token},
        headers={"Accept-Language": "pt-BR"},
    )
    assert waits(refused) == 2
    assert "O acesso está pausado por 2 segundos" in refused.get_data(as_text=True)
