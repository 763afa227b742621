import type { PlatformScope } from '../../config.ts';
import { validationFailed, type FieldError } from '../../http/problem.ts';
import type { DataHandling, Permission } from './app.entity.ts';

/**
 * Data access disclosure: the platform scopes an app asks for (each with a reason) and how it
 * handles the data. The schema checks the shape; which scopes exist is configuration
 * (`PLATFORM_SCOPES`), so that check and the ordering happen here, once, on every write. A scope is
 * stored with the label configured at that moment, so users read what the reviewer approved.
 */
export type PermissionInput = { scope: string; reason: string };

/** Known, unique scopes, in the platform's order, each with its label; anything else is 400 naming the allowed scopes. */
export function declaredPermissions(input: readonly PermissionInput[], platform: readonly PlatformScope[]): Permission[] {
  const allowed = platform.map((known) => known.scope).join(', ');
  const errors: FieldError[] = [];
  input.forEach((permission, index) => {
    if (!platform.some((known) => known.scope === permission.scope)) {
      errors.push({ path: `permissions[${index}].scope`, message: `"${permission.scope}" is not a platform scope; allowed: ${allowed}` });
    } else if (input.findIndex((other) => other.scope === permission.scope) !== index) {
      errors.push({ path: `permissions[${index}].scope`, message: `"${permission.scope}" is listed more than once; name each scope once` });
    }
  });
  if (errors.length > 0) throw validationFailed('The request body is invalid', errors);
  return platform.flatMap((known) => {
    const permission = input.find((p) => p.scope === known.scope);
    return permission ? [{ scope: known.scope, label: known.label, reason: permission.reason }] : [];
  });
}

/** A create, PUT or revision payload with its permissions checked and put in the platform's order. */
export function withDeclaredPermissions<T extends { permissions?: readonly PermissionInput[] | null }>(
  input: T,
  platform: readonly PlatformScope[],
): Omit<T, 'permissions'> & { permissions?: Permission[] | null } {
  const { permissions, ...rest } = input;
  // An omitted field stays omitted (a revision merges proposals field by field); null clears.
  if (permissions === undefined) return rest;
  return { ...rest, permissions: permissions && declaredPermissions(permissions, platform) };
}

/** The scopes `proposed` asks for that `live` does not (a revision's new permissions). */
export function addedPermissions(live: readonly Permission[] | null | undefined, proposed: readonly Permission[] | null | undefined): Permission[] {
  return (proposed ?? []).filter((permission) => !(live ?? []).some((current) => current.scope === permission.scope));
}

export interface Disclosure {
  oauthClientId?: string | null;
  permissions?: readonly unknown[] | null;
  dataHandling?: DataHandling | null;
}

/** An app that acts for users (it has an OAuth client) says what it will access and what it does with the data. */
export function missingDisclosure(listing: Disclosure): FieldError[] {
  if (!listing.oauthClientId) return [];
  const errors: FieldError[] = [];
  if (!listing.permissions?.length) {
    errors.push({ path: 'permissions', message: 'an app with an OAuth client must declare the platform scopes it asks for, each with a reason' });
  }
  if (!listing.dataHandling) {
    errors.push({
      path: 'dataHandling',
      message: 'an app with an OAuth client must say how it handles workspace data (storesUserData, locations, thirdParties, retentionDays)',
    });
  }
  return errors;
}

/** The data handling as lines of text (diffs, e-mails). */
export function describeDataHandling(handling: DataHandling): string[] {
  return [
    `Stores user data: ${handling.storesUserData ? 'yes' : 'no'}`,
    `Locations: ${handling.locations.length ? handling.locations.join(', ') : 'none'}`,
    `Third parties: ${handling.thirdParties.length ? handling.thirdParties.map((party) => `${party.name} (${party.purpose})`).join(', ') : 'none'}`,
    `Retention: ${handling.retentionDays === null ? 'until the app is removed' : `${handling.retentionDays} days`}`,
  ];
}
