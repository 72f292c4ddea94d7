"""Runs the fake providers by hand, for demos and browser tests.

    python -m tests.fakes --port 8099 [--script replies.json] [--gevent]

The script maps provider names to lists of replies (see `Reply` for the fields), e.g.
`{"mistral": [{"status": 429, "headers": {"Retry-After": "30"}}, {"text": ["Hello", " there"]}]}`.
Unscripted requests are echoed. Another process scripts it over HTTP: `POST /_fake/script` with
the same JSON, `POST /_fake/reset`, `POST /_fake/requests` (what it received). Point each link at it with
`BEYOU_LLM_<NAME>_BASE_URL=http://127.0.0.1:8099/<name>/v1` (Gemini: `.../gemini`).

`--gevent` serves each connection on a greenlet instead of a thread: hundreds of answers paced at
tens of chunks a second (bench.concurrent_answers) would otherwise spend the machine's cores on
the GIL's hand-offs between as many threads, not on the app being measured.
"""

import argparse
import json
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8099)
    parser.add_argument("--script", help="JSON file of replies per provider")
    parser.add_argument("--gevent", action="store_true", help="a greenlet per connection, not a thread")
    args = parser.parse_args()
    if args.gevent:
        from gevent import monkey

        monkey.patch_all()
    from tests.fakes.server import FakeProviders

    fake = FakeProviders(args.host, args.port)
    if args.script:
        with open(args.script, encoding="utf-8") as handle:
            fake.load(json.load(handle))
    fake.start()
    print(f"fake providers on {fake.url} (Ctrl-C to stop)", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        fake.stop()


if __name__ == "__main__":
    main()
