"""The WSGI application object, for servers that import one (gunicorn: `scripts.wsgi_app:application`)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import app  # noqa: E402
from scripts.wsgi import wsgi_app  # noqa: E402

application = wsgi_app(app.app)
