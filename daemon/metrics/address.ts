/**
 * The metrics endpoint's address, `HOST:PORT` (`[::1]:9464` for an IPv6 host). Only loopback is
 * accepted unless the operator says otherwise: the metrics name every queue and job kind, and the
 * endpoint is plain HTTP without authentication.
 */
import * as net from 'node:net';

export interface MetricsAddress {
  host: string;
  port: number;
}

/** Parses `HOST:PORT`; the error names the flag and what is allowed. */
export function parseMetricsAddress(value: string, flag = '--metrics'): MetricsAddress {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d+)$/.exec(value.trim());
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (!match || host === undefined || host === '') {
    throw new Error(`${flag} must be HOST:PORT (e.g. 127.0.0.1:9464, or [::1]:9464 for IPv6); got "${value}".`);
  }
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new Error(`${flag}: the port must be from 1 to 65535; got "${match[3]}".`);
  if (match[1] !== undefined && net.isIPv6(host) === false) throw new Error(`${flag}: "[${host}]" is not an IPv6 address.`);
  return { host, port };
}

/** True for `localhost`, 127.0.0.0/8 and ::1: addresses no other machine reaches. */
export function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return net.isIPv4(host) && host.startsWith('127.');
}

/**
 * The address to serve metrics on, refused when it is not loopback and `allowRemote` is false:
 * anyone who reaches it reads the queue names, so opening it wider is an explicit choice.
 */
export function metricsAddress(value: string, allowRemote: boolean): MetricsAddress {
  const address = parseMetricsAddress(value);
  if (!allowRemote && !isLoopback(address.host)) {
    throw new Error(
      `--metrics ${value}: ${address.host} is not a loopback address, and the metrics (plain HTTP, no authentication) name every queue. ` +
        'Serve them on 127.0.0.1 behind a proxy, or add --metrics-allow-remote to bind to it anyway.',
    );
  }
  return address;
}
