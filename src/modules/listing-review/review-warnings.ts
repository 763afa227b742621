import type { AppDossier } from '../apps/app-directory.ts';

/**
 * What a reviewer must have looked at before approving: image problems, look-alike names and (for a
 * revision) new permissions. The review page shows them above the decision buttons, and an approval
 * while any stands needs the reviewer's explicit "I have checked the warnings" (recorded in the audit log).
 */
export interface ReviewWarning {
  kind: 'images' | 'lookalike' | 'permissions';
  /** What it is, in a few words. */
  label: string;
  /** One line, as the audit log keeps it. */
  summary: string;
}

export function reviewWarnings(kind: 'app' | 'revision', dossier: AppDossier): ReviewWarning[] {
  const checks = kind === 'app' ? dossier.app.assetChecks : (dossier.app.pendingRevision?.assetChecks ?? []);
  const problems = checks.filter((check) => !check.ok);
  const added = kind === 'revision' ? (dossier.app.pendingRevision?.addedPermissions ?? []) : [];
  const warnings: ReviewWarning[] = [];
  if (problems.length > 0) {
    warnings.push({
      kind: 'images',
      label: 'image problems',
      summary: `image problems: ${problems.map((check) => `${check.field} (${check.problems.join('; ')})`).join(', ')}`,
    });
  }
  if (dossier.lookalikes.length > 0) {
    warnings.push({
      kind: 'lookalike',
      label: 'look-alike names',
      summary: `look-alike names: ${dossier.lookalikes.map((l) => `${l.name} (similarity ${l.similarity})`).join(', ')}`,
    });
  }
  if (added.length > 0)
    warnings.push({ kind: 'permissions', label: 'new permissions', summary: `new permissions: ${added.map((p) => p.scope).join(', ')}` });
  return warnings;
}
