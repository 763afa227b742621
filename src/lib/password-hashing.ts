import { PRODUCTION_PASSWORD_HASH_COST, type PasswordHashCost } from '../config.ts';

/**
 * Admin passwords are hashed with argon2id at Bun's own cost (64 MiB, two passes: 160–320 ms a hash
 * on the 2-core machines measured). `APP_ENV=test` uses a light cost (D212): the suite signs in hundreds of times,
 * and what it proves does not depend on the cost. A hash carries its own parameters, so any hash
 * verifies whatever the current cost is.
 */
let cost = PRODUCTION_PASSWORD_HASH_COST;

/** Handed over once at start-up, from the configuration. */
export function usePasswordHashCost(chosen: PasswordHashCost): void {
  cost = chosen;
}

export const hashPassword = (password: string) => Bun.password.hash(password, { algorithm: 'argon2id', ...cost });
