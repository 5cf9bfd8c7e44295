"""The Chalice app: creates it and registers the blueprints. Nothing else lives here."""
from chalice import Chalice

from chalicelib.api import meta, organisers, public, tournaments

app = Chalice(app_name="cardgames")

for blueprint in (meta, organisers, tournaments, public):
    app.register_blueprint(blueprint.bp)
