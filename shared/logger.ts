import { pino, type Logger } from "pino";

/** The process logger: pino JSON on stdout; level from LOG_LEVEL (default info). */
export function createLogger(name: string, level = process.env.LOG_LEVEL ?? "info"): Logger {
  return pino({ name, level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime });
}

/** A logger that drops everything (tests of pure parts). */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
