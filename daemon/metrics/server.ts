/**
 * The metrics endpoint: plain HTTP, `GET /metrics` in Prometheus's text format, 404 for any other
 * path. Prometheus scrapes plain HTTP; the address is loopback by default (address.ts), and a
 * proxy adds TLS or authentication where a team needs them.
 */
import * as http from 'node:http';
import type { Logger } from '../lifecycle/logger';
import type { MetricsAddress } from './address';
import type { DaemonMetrics } from './metrics';
import { errorMessage } from '../../shared/protocol/errors';
import { bearerMatches } from './token';

export class MetricsServer {
  private constructor(
    private readonly server: http.Server,
    /** Where it listens, with the port the system chose when 0 was asked for. */
    readonly address: MetricsAddress,
  ) {}

  /** Listens on `address`; rejects (nothing left open) when the address cannot be bound. */
  /** With `token` (--metrics-token), a scrape must send `Authorization: Bearer <token>`. */
  static async listen(address: MetricsAddress, metrics: DaemonMetrics, logger: Logger, token: string | null = null): Promise<MetricsServer> {
    const server = http.createServer((request, response) => {
      if (token !== null && !bearerMatches(request.headers.authorization, token)) {
        response
          .writeHead(401, { 'www-authenticate': 'Bearer realm="spool metrics"', 'content-type': 'text/plain; charset=utf-8' })
          .end('Unauthorized: this endpoint needs the token of --metrics-token, sent as "Authorization: Bearer <token>".\n');
        return;
      }
      const path = (request.url ?? '/').split('?')[0];
      if (path !== '/metrics') {
        response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: Spool serves its metrics at /metrics.\n');
        return;
      }
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('Only GET reads the metrics.\n');
        return;
      }
      metrics.exposition().then(
        ({ contentType, body }) => response.writeHead(200, { 'content-type': contentType }).end(request.method === 'HEAD' ? undefined : body),
        (error: unknown) => {
          // Most likely the store did not answer for the job counts: a failed scrape, which
          // Prometheus records as `up == 0`, rather than counts that are silently missing.
          logger.error('Could not collect the metrics', { error });
          response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Could not collect the metrics; the daemon log has the details.\n');
        },
      );
    });
    // A scraper keeps its connection open between scrapes; it must not hold up shutdown.
    server.keepAliveTimeout = 5_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(address.port, address.host, () => {
        server.off('error', reject);
        resolve();
      });
    }).catch((error: unknown) => {
      const reason = errorMessage(error);
      throw new Error(`Cannot serve metrics on ${address.host}:${address.port}: ${reason}. Choose another --metrics address.`);
    });
    server.on('error', (error) => logger.error('The metrics endpoint failed', { error }));
    const bound = server.address();
    const port = bound !== null && typeof bound === 'object' ? bound.port : address.port;
    return new MetricsServer(server, { host: address.host, port });
  }

  /** Stops listening and ends every open connection, idle or not. */
  close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    return closed;
  }
}
