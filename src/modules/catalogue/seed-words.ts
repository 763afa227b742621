import type { Category } from '../apps/app.entity.ts';

/** Word lists the demo seed builds listings from: a brand word, a category noun, an optional edition. */
export const BRANDS = [
  'Atlas',
  'Aurora',
  'Beacon',
  'Bright',
  'Canyon',
  'Cedar',
  'Clear',
  'Cobalt',
  'Delta',
  'Echo',
  'Ember',
  'Falcon',
  'Harbor',
  'Juniper',
  'Kite',
  'Lattice',
  'Lumen',
  'Maple',
  'Mosaic',
  'Nimble',
  'Nimbus',
  'Nova',
  'Onyx',
  'Orbit',
  'Pixel',
  'Prism',
  'Quantum',
  'Quiet',
  'Relay',
  'Sable',
  'Summit',
  'Swift',
  'Tidal',
  'Vector',
  'Vivid',
  'Willow',
  'Zen',
  'Zephyr',
  'Granite',
  'Meadow',
] as const;

export const EDITIONS = ['', ' Pro', ' Sync', ' Hub', ' Lite', ' Plus', ' Studio', ' Connect', ' Assistant', ' Suite'] as const;

interface CategoryWords {
  nouns: readonly string[];
  does: readonly string[];
  audiences: readonly string[];
}

export const CATEGORY_WORDS: Record<Category, CategoryWords> = {
  PRODUCTIVITY: {
    nouns: ['Planner', 'Focus', 'Agenda', 'Timeboxer', 'Checklist', 'Kanban', 'Sprint Board', 'Daily Notes', 'Habit Tracker', 'Task Flow'],
    does: [
      'plans your week around real deadlines',
      'turns task lists into focused time blocks',
      'keeps recurring work on schedule',
      'groups tasks by energy and context',
    ],
    audiences: ['busy teams', 'freelancers', 'project managers', 'students'],
  },
  UTILITIES: {
    nouns: ['Backup', 'Cleaner', 'Converter', 'Importer', 'Exporter', 'Bulk Editor', 'Deduper', 'Archiver', 'Template Kit', 'Shortcuts'],
    does: [
      'moves tasks between projects in bulk',
      'finds and merges duplicate tasks',
      'backs up every project nightly',
      'converts spreadsheets into task lists',
    ],
    audiences: ['workspace admins', 'power users', 'operations teams', 'small offices'],
  },
  BUSINESS: {
    nouns: ['CRM', 'Deal Desk', 'Proposals', 'Client Portal', 'Onboarding', 'Contracts', 'Vendor Hub', 'Helpdesk', 'OKRs', 'Hiring Board'],
    does: [
      'links every customer deal to its delivery tasks',
      'tracks proposals from draft to signature',
      'gives clients a view of their project status',
      'keeps objectives and key results next to the work',
    ],
    audiences: ['agencies', 'sales teams', 'consultancies', 'growing startups'],
  },
  DEVELOPER_TOOLS: {
    nouns: [
      'Git Bridge',
      'Issue Sync',
      'Deploy Tracker',
      'Changelog',
      'Code Review',
      'Bug Triage',
      'CI Monitor',
      'Release Notes',
      'API Console',
      'Snippets',
    ],
    does: [
      'links commits and pull requests to tasks',
      'opens a task for every failed build',
      'drafts release notes from finished tasks',
      'triages incoming bug reports by severity',
    ],
    audiences: ['engineering teams', 'open-source maintainers', 'platform teams', 'QA engineers'],
  },
  COMMUNICATION: {
    nouns: ['Chat Bridge', 'Mailroom', 'Standup', 'Notifier', 'Huddle', 'Announcements', 'Inbox', 'Digest', 'Meeting Notes', 'Mentions'],
    does: [
      'posts task updates to your team chat',
      'turns e-mails into tasks with one click',
      'runs asynchronous daily standups',
      'sends a morning digest of what changed',
    ],
    audiences: ['remote teams', 'distributed companies', 'support teams', 'team leads'],
  },
  ANALYTICS: {
    nouns: ['Insights', 'Dashboards', 'Burndown', 'Velocity', 'Metrics', 'Reports', 'Forecast', 'Heatmap', 'Scorecard', 'Trends'],
    does: [
      'charts throughput and cycle time per project',
      'forecasts delivery dates from past velocity',
      'builds weekly reports without spreadsheets',
      'shows where work gets stuck',
    ],
    audiences: ['managers', 'data-minded teams', 'executives', 'delivery leads'],
  },
  AI_ML: {
    nouns: ['Copilot', 'Summarizer', 'Auto Tagger', 'Smart Triage', 'Writer', 'Estimator', 'Classifier', 'Assistant AI', 'Prioritizer', 'Meeting AI'],
    does: [
      'summarises long task threads in a paragraph',
      'suggests priorities from deadlines and effort',
      'tags and routes new tasks automatically',
      'estimates effort from similar past tasks',
    ],
    audiences: ['fast-moving teams', 'product managers', 'support desks', 'researchers'],
  },
  FINANCE: {
    nouns: ['Invoices', 'Expenses', 'Budget', 'Timesheets', 'Billing', 'Payroll', 'Ledger', 'Receipts', 'Quotes', 'Cash Flow'],
    does: [
      'turns tracked time into invoices',
      'keeps project budgets next to the tasks that spend them',
      'collects receipts for every expense task',
      'sends quotes from a task template',
    ],
    audiences: ['freelancers', 'accountants', 'agencies', 'finance teams'],
  },
  EDUCATION: {
    nouns: ['Classroom', 'Course Planner', 'Flashcards', 'Gradebook', 'Study Buddy', 'Syllabus', 'Homework', 'Tutor', 'Quiz Maker', 'Reading List'],
    does: [
      'plans a course as weekly tasks',
      'turns assignments into a study schedule',
      'tracks homework for a whole class',
      'builds quizzes from course material',
    ],
    audiences: ['teachers', 'students', 'schools', 'tutors'],
  },
  OTHER: {
    nouns: [
      'Garden Log',
      'Recipe Box',
      'Travel Plans',
      'Wedding Planner',
      'Moving Day',
      'Event Kit',
      'Volunteer Hub',
      'Fitness Log',
      'Home Chores',
      'Pet Care',
    ],
    does: [
      'keeps a household running with shared tasks',
      'plans events from guest list to clean-up',
      'organises volunteers and their shifts',
      'turns a big move into a checklist',
    ],
    audiences: ['families', 'community groups', 'event organisers', 'hobbyists'],
  },
};

export const SECOND_SENTENCES = [
  'Syncs both ways in real time.',
  'Set up in two minutes, no code required.',
  'Works with every project you already have.',
  'Free for small teams.',
  'Keeps your data in your workspace.',
  'Built for teams of every size.',
] as const;

export const DEMO_DEVELOPERS = [
  { name: 'Ada Park', companyName: 'Northwind Labs' },
  { name: 'Tomás Rivera', companyName: 'Bluebird Software' },
  { name: 'Mei Chen', companyName: 'Lighthouse Apps' },
  { name: 'Kwame Mensah', companyName: 'Gridline Studio' },
  { name: 'Sofia Rossi', companyName: null },
  { name: 'Jonas Berg', companyName: 'Fjord Digital' },
] as const;

export const REVIEW_TITLES: Record<number, readonly string[]> = {
  1: ['Did not work for us', 'Broke our workflow', 'Not ready yet'],
  2: ['Needs work', 'Too many rough edges', 'Promising but buggy'],
  3: ['Does the job', 'Okay for basics', 'Decent, a few gaps'],
  4: ['Really useful', 'Solid integration', 'Saves us time every week'],
  5: ['Excellent', 'Exactly what we needed', 'Our whole team loves it'],
};

export const REVIEWER_NAMES = [
  'Alex M.',
  'Priya S.',
  'Jordan K.',
  'Lena W.',
  'Omar H.',
  'Chloe D.',
  'Mateo R.',
  'Hana T.',
  'Sam O.',
  'Nina B.',
] as const;
