/**
 * Why the identity store refused a write. The resolver layer maps these onto the service's error catalogue
 * (invalid_* → 400 naming the field, unknown_* → 404, duplicate_email and key_limit → 409).
 */
export type IdentityErrorKind =
  | 'invalid_scope'
  | 'invalid_expiry'
  | 'invalid_label'
  | 'unknown_person'
  | 'unknown_workspace'
  | 'duplicate_email'
  | 'invalid_email'
  | 'invalid_password'
  | 'invalid_name'
  | 'key_limit';

export class IdentityError extends Error {
  readonly kind: IdentityErrorKind;
  /** The input field at fault, for the 400 envelope's `details`. */
  readonly field?: string;
  readonly details?: Record<string, unknown>;

  constructor(kind: IdentityErrorKind, message: string, options: { field?: string; details?: Record<string, unknown> } = {}) {
    super(message);
    this.name = 'IdentityError';
    this.kind = kind;
    this.field = options.field;
    this.details = options.details;
  }
}

/** A person already owns as many workspaces as they may create themselves (the dashboard's limit). */
export class WorkspaceLimitReached extends Error {
  readonly limit: number;

  constructor(limit: number) {
    super(`You already own ${limit} workspaces, the most one person may create. Ask the operator if you need more.`);
    this.name = 'WorkspaceLimitReached';
    this.limit = limit;
  }
}
