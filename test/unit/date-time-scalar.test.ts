import { DateTimeResolver } from 'graphql-scalars';
import { describe, expect, it } from 'vitest';
import { DateTimeScalar } from '../../schema/date-time-scalar.ts';

/** On the wire (JSON) the fast path must send exactly what graphql-scalars sends, and refuse what it refuses. */
const wire = (value: unknown) => JSON.stringify(value);

describe('DateTime scalar', () => {
  it.each(['2026-11-25T00:26:45.404Z', '2024-02-29T23:59:59.999Z', '1970-01-01T00:00:00.000Z'])('sends %s as graphql-scalars does, without parsing it', (value) => {
    expect(DateTimeScalar.serialize(value)).toBe(value);
    expect(wire(DateTimeScalar.serialize(value))).toBe(wire(DateTimeResolver.serialize(value)));
  });

  it.each(['2026-11-25T02:26:45+02:00', '2026-11-25T00:26:45Z', '2026-11-25T00:26:45.4Z'])('normalises %s as graphql-scalars does', (value) => {
    expect(wire(DateTimeScalar.serialize(value))).toBe(wire(DateTimeResolver.serialize(value)));
  });

  it.each(['2026-13-25T00:26:45.404Z', '2026-11-25T24:00:00.000Z', 'yesterday'])('refuses %s', (value) => {
    expect(() => DateTimeScalar.serialize(value)).toThrow();
  });

  it('serializes Dates as graphql-scalars does', () => {
    const date = new Date('2026-11-25T00:26:45.404Z');
    expect(wire(DateTimeScalar.serialize(date))).toBe(wire(DateTimeResolver.serialize(date)));
  });
});
