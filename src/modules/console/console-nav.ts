import type { NavItem } from '../../../views/admin/layout.ts';
import type { Capabilities, Capability } from '../admin-accounts/capabilities.ts';

/** The console's navigation; an admin sees the links their role can use, the current section marked. */
const NAV: { href: string; label: string; capability: Capability }[] = [
  { href: '/admin', label: 'Dashboard', capability: 'view' },
  { href: '/admin/developers', label: 'Developers', capability: 'view' },
  { href: '/admin/teams', label: 'Teams', capability: 'view' },
  { href: '/admin/review', label: 'Review queue', capability: 'view' },
  { href: '/admin/apps', label: 'Apps', capability: 'view' },
  { href: '/admin/reviews', label: 'Reviews', capability: 'view' },
  { href: '/admin/oauth-clients', label: 'OAuth clients', capability: 'view' },
  { href: '/admin/jobs', label: 'Jobs', capability: 'jobs' },
  { href: '/admin/audit', label: 'Audit log', capability: 'view' },
  { href: '/admin/admins', label: 'Admins', capability: 'admins.manage' },
];

export function navFor(path: string, can: Capabilities): NavItem[] {
  const active = NAV.filter((item) => path === item.href || path.startsWith(`${item.href}/`)).sort((a, b) => b.href.length - a.href.length)[0];
  return NAV.filter((item) => can[item.capability]).map((item) => ({ href: item.href, label: item.label, active: item === active }));
}
