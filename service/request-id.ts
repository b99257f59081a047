import { randomUUID } from 'node:crypto';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** Keeps a well-formed client-supplied request id (for tracing across systems); otherwise makes one. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value && CLIENT_REQUEST_ID.test(value) ? value : `req_${randomUUID()}`;
}
