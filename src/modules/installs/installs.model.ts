import { t, type Static } from 'elysia';
import { SingleLine, Timestamp } from '../../http/schemas.ts';

/** The body may be left out altogether (read as `{}`): an anonymous install then counts per address and day. */
export const InstallBody = t.Object(
  {
    installationId: t.Optional(SingleLine(1, 200, 'A stable id of this installation (for example of a workspace); counted once per app')),
  },
  {
    additionalProperties: false,
    description: 'Optional: an empty request body is read as `{}`',
    examples: [{ installationId: 'workspace-7' }],
  },
);
export type InstallInput = Static<typeof InstallBody>;

export const InstallResult = t.Object(
  {
    slug: t.String(),
    installedAt: Timestamp,
  },
  { description: 'The install was counted' },
);
export type InstallResult = Static<typeof InstallResult>;

/** An uninstall names the installer of the install: the OAuth bearer, else this `installationId`. */
export const UninstallBody = t.Object(
  { installationId: InstallBody.properties.installationId },
  { additionalProperties: false, description: 'Without a platform OAuth bearer token, `installationId` is required' },
);
export type UninstallInput = Static<typeof UninstallBody>;

export const UninstallResult = t.Object({
  slug: t.String(),
  uninstalledAt: Timestamp,
});
export type UninstallResult = Static<typeof UninstallResult>;
