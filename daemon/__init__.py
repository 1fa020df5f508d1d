"""memoryd.daemon: wiring only (operations, scheduler, watcher, socket server, service lifecycle)."""
