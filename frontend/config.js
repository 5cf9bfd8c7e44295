// Where the API lives. `make run` and the tests serve their own /config.js; a deployment writes this file.
window.CONFIG = window.CONFIG || {api: location.protocol + "//" + location.hostname + ":8000"};
