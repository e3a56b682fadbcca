// Package e2e holds the live runtime's end-to-end tests: a real master
// (TLS socket on loopback, SQLite, driver) and real workers (in-process or
// subprocesses of the volsched binary), fault-free, under emulated
// volatility, with the master or workers killed, and hostile clients.
package e2e
