"""The Chalice app: creates it, registers the blueprints and the scheduled jobs. Nothing else lives here."""
from chalice import Chalice, Rate

from chalicelib.api import desk, entries, jobs, meta, organisers, public, rounds, tournaments, webhooks

app = Chalice(app_name="cardgames")
app.api.binary_types.append("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")

for blueprint in (meta, organisers, tournaments, public, entries, desk, rounds, webhooks):
    app.register_blueprint(blueprint.bp)


@app.schedule(Rate(5, unit=Rate.MINUTES), name="sweep_holds")
def sweep_holds(event):
    return jobs.sweep_holds(event)
