"""Service templates (systemd user unit, launchd agent) shipped as package data of memoryd.systemd."""
