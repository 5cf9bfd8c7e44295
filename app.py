"""The Chalice app: creates it, registers the blueprints and the scheduled jobs. Nothing else lives here."""
import os

# No pydantic plugins are used: skip their entry-point scan (about 20 ms of every cold start).
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "1")

from chalice import Rate  # noqa: E402

from chalicelib.api import desk, entries, hall, jobs, meta, organisers, public, referee, registrations, rounds, staff, tournaments, webhooks  # noqa: E402
from chalicelib.api import demo_pay, messages, payment_accounts, players, posters, rankings, roster_import, wechat_oauth  # noqa: E402
from chalicelib.api import manage_links, organiser_recovery  # noqa: E402
from chalicelib.api.application import CardGamesApp  # noqa: E402
from chalicelib.api.errorshape import uniform_errors  # noqa: E402

app = CardGamesApp(app_name="cardgames")
app.api.binary_types.append("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
app.api.binary_types.append("image/png")
app.register_middleware(uniform_errors, "http")

for blueprint in (meta, organisers, staff, tournaments, public, entries, registrations, desk, rounds, referee,
                  webhooks, roster_import, posters, hall, wechat_oauth, demo_pay, rankings, messages, players, payment_accounts,
                  organiser_recovery, manage_links):
    app.register_blueprint(blueprint.bp)


@app.schedule(Rate(5, unit=Rate.MINUTES), name="sweep_holds")
def sweep_holds(event):
    return jobs.sweep_holds(event)


# The messages' outbox (chalicelib/messages): what is due, every minute (a sign-in code goes at once from its request).
@app.schedule(Rate(1, unit=Rate.MINUTES), name="deliver_messages")
def deliver_messages(event):
    return jobs.deliver_messages(event)


# In AWS publishing runs from this queue (the CDK stack creates it, with a dead-letter queue).
@app.on_sqs_message(queue=os.environ.get("PUBLISH_QUEUE_NAME", "cardgames-publish"), batch_size=5,
                    name="publish_from_queue")
def publish_from_queue(event):
    return jobs.publish_from_queue(event)


# An urgent job queued (an organiser's reset, a round's draw) nudges the outbox's worker through this queue, so it
# goes within seconds; the scheduled minute above stays the safety net (chalicelib/messages/nudge.py).
@app.on_sqs_message(queue=os.environ.get("MESSAGES_QUEUE_NAME", "cardgames-messages"), batch_size=10,
                    name="deliver_nudged")
def deliver_nudged(event):
    return jobs.deliver_nudged(event)
