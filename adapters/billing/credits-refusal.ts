/**
 * Why a billed call was not admitted. The codes are the service's error codes (402, 402, 429 credits_held),
 * so the pipeline maps them one to one; the numbers let it fill `details`.
 */
export type CreditsRefusalCode = 'insufficient_credits' | 'spending_paused' | 'credits_held';

export class CreditsRefusal extends Error {
  readonly code: CreditsRefusalCode;
  readonly balance: number;
  readonly available: number;
  /** The call's minimum charge, when the refusal came at admission. */
  readonly minimumCredits?: number;
  /** What the call's result costs, when the refusal came at settlement (the result was worth more than was held). */
  readonly price?: number;

  constructor(code: CreditsRefusalCode, figures: { balance: number; available: number; minimumCredits?: number; price?: number }) {
    super(`Billed call refused: ${code} (balance ${figures.balance}, available ${figures.available}, ${figures.price === undefined ? `minimum ${figures.minimumCredits}` : `price ${figures.price}`}).`);
    this.name = 'CreditsRefusal';
    this.code = code;
    this.balance = figures.balance;
    this.available = figures.available;
    this.minimumCredits = figures.minimumCredits;
    this.price = figures.price;
  }
}

/** An operator action the account's state cannot allow, such as a refund above the net purchases. */
export class CreditsConflict extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = 'CreditsConflict';
  }
}

export function isCreditsRefusal(error: unknown): error is CreditsRefusal {
  return error instanceof CreditsRefusal;
}
