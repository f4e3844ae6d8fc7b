// gRPC server pieces of the control plane: unary handlers (Admin, Registration, AgentHub.Renew)
// that answer with an async function's result or a refusal carrying a status code and a message
// for the caller, and a shutdown that cannot hang.
import { type Server, type ServerUnaryCall, type sendUnaryData, status as GrpcStatus } from "@grpc/grpc-js";

/** A refusal with a gRPC status code and a message for the caller. */
export class RpcError extends Error {
  readonly code: GrpcStatus;
  constructor(code: GrpcStatus, message: string) {
    super(message);
    this.code = code;
  }
}

/**
 * A grpc-js unary handler running `handle`: its answer, an RpcError's status and message, or
 * INTERNAL with the error's message (reported to `onInternal` first, for the log).
 */
export function unaryHandler<Req, Res>(handle: (call: ServerUnaryCall<Req, Res>) => Promise<Res>, onInternal: (err: unknown) => void = () => undefined) {
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>): void => {
    handle(call).then(
      (res) => callback(null, res),
      (err: unknown) => {
        if (err instanceof RpcError) {
          callback({ code: err.code, details: err.message });
          return;
        }
        onInternal(err);
        callback({ code: GrpcStatus.INTERNAL, details: err instanceof Error ? err.message : String(err) });
      },
    );
  };
}

/**
 * Stops a gRPC server: lets calls in flight finish for up to graceMs, then cancels what is left,
 * so a call that never ends (a misbehaving peer) cannot hold up a shutdown.
 */
export async function shutdownServer(server: Server, graceMs = 5_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
    new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        server.forceShutdown();
        resolve();
      }, graceMs);
    }),
  ]);
  clearTimeout(timer);
}
