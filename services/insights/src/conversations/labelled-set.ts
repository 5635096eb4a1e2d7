import type { z } from 'zod';
import type { conversationInput } from '@quire/contract';
import { seededRandom } from '@quire/runtime';

/*
 * A labelled set of support conversations about ten known problems of a documentation
 * platform, for measuring the clustering (tests and `npm run bench -- conversations`). Each
 * problem has many hand-written phrasings: ways to state it, details, questions and subjects;
 * a conversation combines some of them with greetings, sign-offs and an answer from the team.
 * The combination is drawn by a seeded generator: the same set every run.
 */

export type ConversationInput = z.input<typeof conversationInput>;

/** One known problem and its phrasings. */
interface Problem {
  key: string;
  subjects: string[];
  statements: string[];
  details: string[];
  questions: string[];
}

const PROBLEMS: Problem[] = [
  {
    key: 'password-reset',
    subjects: [
      'Password reset email not arriving',
      'Cannot reset my password',
      'Forgot password link',
      'Reset password mail missing',
      'Locked out, password reset',
    ],
    statements: [
      'I requested a password reset but the email never arrived.',
      'The reset password email does not show up in my inbox.',
      "I forgot my password and the reset link isn't being sent to me.",
      'Password reset mails are not reaching me, I tried four times.',
      'When I click "Forgot password" nothing arrives in my mailbox.',
      'I never receive the password recovery email.',
      "The password reset link in the email says it's invalid.",
      "My password reset isn't working, no email at all.",
    ],
    details: [
      'I already checked the spam folder.',
      'My email address is correct in the account.',
      'Our company mail server might filter it, not sure.',
      'The reset link expired before I could open it.',
      'I tried from two different browsers.',
    ],
    questions: [
      'How can I reset my password?',
      'Can you send the password reset email again?',
      'Is there another way to recover my password?',
      'Why does the reset email never come?',
    ],
  },
  {
    key: 'sso-login',
    subjects: ['SSO login failing', 'SAML sign-in error', 'Okta SSO broken', 'Cannot sign in with single sign-on', 'Azure AD SAML problem'],
    statements: [
      'Our SAML single sign-on login fails with an error after the Okta redirect.',
      'Signing in through SSO sends us back to the login page in a loop.',
      'Since this morning nobody on our team can log in with SAML SSO.',
      'The SSO sign-in shows "invalid SAML response" for every user.',
      'We configured Azure AD SAML but the single sign-on login is rejected.',
      'Logging in via our identity provider fails, SAML assertion error.',
      "SSO doesn't let our members sign in anymore.",
    ],
    details: [
      'The certificate of our identity provider was renewed last week.',
      'We use Okta as identity provider.',
      'The entity ID matches what the settings page shows.',
      'Password login still works for the admins.',
      'The error appears right after the redirect back from the IdP.',
    ],
    questions: [
      'How do we fix the SAML configuration?',
      'Do we need to upload the new IdP certificate for SSO?',
      'Why is single sign-on rejecting the assertion?',
      'Can you check the SSO logs for our organization?',
    ],
  },
  {
    key: 'billing-charge',
    subjects: ['Charged twice', 'Wrong invoice amount', 'Double payment on my card', 'Billing question about invoice', 'Refund for duplicate charge'],
    statements: [
      'We were charged twice for the same monthly subscription.',
      'My credit card shows two payments for this month’s invoice.',
      'The invoice amount is higher than our plan price.',
      'Our billing shows a duplicate charge on the card.',
      'I see a double charge for the annual plan on our statement.',
      'The latest invoice bills us for more seats than we have.',
      'Your billing system charged our company card two times.',
    ],
    details: [
      'We are on the Pro plan with 12 seats.',
      'Our finance team noticed it on the card statement.',
      'The invoice number ends with 4821.',
      'We did not change the plan or add members.',
      'The payment was taken on the 3rd and again on the 4th.',
    ],
    questions: [
      'Can you refund the duplicate payment?',
      'Why is the invoice amount different from the plan price?',
      'How do I get a corrected invoice?',
      'Could you cancel the second charge?',
    ],
  },
  {
    key: 'custom-domain',
    subjects: [
      'Custom domain not working',
      'SSL certificate pending',
      'DNS setup for docs domain',
      'Domain shows certificate error',
      'CNAME for custom hostname',
    ],
    statements: [
      'Our custom domain for the docs site still shows a certificate error.',
      'The SSL certificate for our custom domain has been pending for three days.',
      'docs.example.com does not resolve to the published site after setting the CNAME.',
      'The custom hostname shows "domain not configured" even though the DNS record exists.',
      'Visitors get an insecure connection warning on our custom domain.',
      "We added the CNAME record but the domain verification doesn't finish.",
      'Our site on the custom domain returns a 404 while the default URL works.',
    ],
    details: [
      'The CNAME points to the host name from the settings page.',
      'We use Cloudflare for DNS with the proxy turned off.',
      'DNS propagation should be done by now.',
      'The domain worked before we moved DNS providers.',
      'Our IT team double-checked the DNS record.',
    ],
    questions: [
      'How long does the SSL certificate take to issue?',
      'Is the CNAME record correct for a custom domain?',
      'Can you trigger the domain verification again?',
      'What DNS settings does a custom domain need?',
    ],
  },
  {
    key: 'git-sync',
    subjects: ['GitHub sync stopped', 'Git sync not updating', 'Sync conflict with repository', 'Changes from GitHub not showing', 'GitLab sync error'],
    statements: [
      'Our GitHub sync stopped updating the space after the last commit.',
      "Changes pushed to the repository don't appear in the docs anymore.",
      'The Git sync shows an error and the branch is out of date.',
      'Git synchronization with our GitHub repository fails every time.',
      'Edits made in the editor are not pushed to the GitHub repo.',
      'The sync with GitLab keeps failing with a conflict.',
      'Our repository sync has been stuck on "syncing" since yesterday.',
    ],
    details: [
      'The repository is private and the app has access to it.',
      'We renamed the main branch last week.',
      'The last successful sync was on Monday.',
      'We merged a big pull request with many markdown files.',
      'The GitHub app installation looks fine in our settings.',
    ],
    questions: [
      'How do we trigger the Git sync again?',
      'Why are commits from GitHub not imported?',
      'Do we need to reconnect the repository?',
      'How can we resolve the sync conflict?',
    ],
  },
  {
    key: 'search',
    subjects: ['Search not finding pages', 'Search results outdated', 'Search broken on docs site', 'Site search returns nothing', 'Search index problem'],
    statements: [
      'The search on our docs site does not find pages that clearly exist.',
      'Search results still show old content that we deleted weeks ago.',
      'Searching for a keyword from a page title returns no results.',
      'Our site search only finds a few pages, most are missing from the results.',
      'The search bar returns nothing for terms that appear in our guides.',
      'New pages never show up in search results.',
      'Search seems to index only the first space of the site.',
    ],
    details: [
      'We published the pages three days ago.',
      'The pages are in a space linked to the site.',
      'Searching inside the editor works fine.',
      'We have about 400 pages in total.',
      'The missing pages have long titles with code in them.',
    ],
    questions: [
      'How often is the search index updated?',
      'Can you rebuild the search index for our site?',
      'Why are new pages missing from the search results?',
      'Is there a way to make search include every space?',
    ],
  },
  {
    key: 'pdf-export',
    subjects: ['PDF export failing', 'Export to PDF missing images', 'Cannot download PDF', 'PDF generation error', 'Broken PDF export'],
    statements: [
      'Exporting the space to PDF fails with a generic error.',
      'The exported PDF is missing all the images and diagrams.',
      'When I export to PDF the download never starts.',
      'PDF export cuts off long code blocks and tables.',
      'Our PDF export stopped working after we added more pages.',
      'The PDF file generated from the docs is blank after the first page.',
      'Generating a PDF of the space times out.',
    ],
    details: [
      'The space has around 200 pages.',
      'Images are stored as uploaded files in the space.',
      'I tried exporting a single page and it worked.',
      'We need the PDF for an offline customer handbook.',
      'The export button spins for a few minutes and then stops.',
    ],
    questions: [
      'How can I export the whole space as a PDF?',
      'Why are images missing from the PDF export?',
      'Is there a page limit for the PDF export?',
      'Can the PDF export include the table of contents?',
    ],
  },
  {
    key: 'invite-members',
    subjects: ['Cannot invite teammates', 'Invitation link expired', 'Invite not received', 'Problem adding members', 'Team invitations failing'],
    statements: [
      'I can’t invite new teammates to our organization, the invite button is greyed out.',
      'Our new colleague never received the invitation to join the organization.',
      'The invite link we shared says it has expired.',
      'Inviting members fails with "seat limit reached" although we have free seats.',
      'Invited members end up with the wrong role after they join.',
      'People who accept the invitation do not appear in the member list.',
      'Adding a teammate by invitation does not work for our domain.',
    ],
    details: [
      'I am an admin of the organization.',
      'We invited five people from the marketing team.',
      'The invitations were sent on Friday.',
      'We enabled invite links in the organization settings.',
      'Our plan includes 20 seats and we use 14.',
    ],
    questions: [
      'How do I invite members to the organization?',
      'Can you resend the invitations?',
      'Why does the invite link expire so quickly?',
      'How can invited members get the editor role?',
    ],
  },
  {
    key: 'api-rate-limit',
    subjects: ['API returns 429', 'Rate limit on the API', 'Too many requests error', 'API throttling our integration', 'Rate limiting question'],
    statements: [
      'Our integration gets 429 Too Many Requests from the API after a few calls.',
      'The API rate limit blocks our nightly import script.',
      'We hit the API rate limit even with very few requests per minute.',
      'Requests to the REST API are throttled with status 429.',
      'Our API token keeps getting rate limited during the sync job.',
      'The API answers "rate limit exceeded" to our automation.',
      'Calling the API in a loop quickly returns too many requests errors.',
    ],
    details: [
      'The script sends about 50 requests per minute.',
      'We use a single API token for the whole import.',
      'The Retry-After header says 60 seconds.',
      'It started after we added more spaces to the import.',
      'We already added a delay between API calls.',
    ],
    questions: [
      'What is the API rate limit per token?',
      'Can you raise the rate limit for our organization?',
      'How should we handle 429 responses from the API?',
      'Is there a bulk API endpoint to avoid the rate limit?',
    ],
  },
  {
    key: 'image-upload',
    subjects: ['Image upload failing', 'Cannot upload images', 'Pictures broken in pages', 'Upload error for screenshots', 'Images not displaying'],
    statements: [
      'Uploading images to a page fails with an error.',
      'Every screenshot I upload shows as a broken image.',
      'I cannot upload pictures larger than a few megabytes.',
      'Images we uploaded yesterday are not displayed on the published site.',
      'Drag and drop of an image into the editor does nothing.',
      'The image upload gets stuck at 99 percent.',
      'PNG uploads work but JPEG images fail to upload.',
    ],
    details: [
      'The images are around 8 MB each.',
      'It happens in Chrome and Firefox.',
      'Older images in the same page still load.',
      'We paste screenshots straight from the clipboard.',
      'Our network has no proxy that would block uploads.',
    ],
    questions: [
      'What is the maximum image size for uploads?',
      'How can I fix the broken images?',
      'Why do image uploads fail in the editor?',
      'Is there another way to upload images?',
    ],
  },
];

const OPENERS = ['Hi there,', 'Hello,', 'Hey team!', 'Good morning,', 'Hi,', '', 'Hello support,', ''];
const CLOSERS = ['Thanks in advance.', 'Any help is appreciated!', 'Thank you.', '', 'Cheers', 'Best regards, Sam', '', 'Thanks!'];
const ANSWERS = [
  'Thanks for reaching out, we are looking into it and will get back to you shortly.',
  'Sorry about the trouble! Could you share a screenshot so we can investigate?',
  'Thank you for the details, I have forwarded this to our engineers.',
  'We are checking this with the team and will update you soon.',
];
const FOLLOW_UPS = ['Any update on this?', 'Here is the screenshot you asked for.', 'Still happening today.', 'Thanks, waiting for your reply.'];
const SOURCES = ['intercom', 'zendesk', 'slack'];

/** A labelled conversation: the input and the known problem it is about. */
export interface LabelledConversation {
  problem: string;
  input: ConversationInput;
}

/** The ten known problems' keys. */
export const KNOWN_PROBLEMS = PROBLEMS.map((problem) => problem.key);

/**
 * `perProblem` conversations about each known problem (interleaved: problem 1, 2, … 10, 1, 2…),
 * dated over the past ten weeks before `now`, from three sources; ids start with `prefix`.
 */
export function labelledConversations(options: { perProblem?: number; seed?: number; now?: Date; prefix?: string } = {}): LabelledConversation[] {
  const { perProblem = 22, seed = 20240611, now = new Date(), prefix = 'labelled' } = options;
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const set: LabelledConversation[] = [];
  for (let round = 0; round < perProblem; round++) {
    for (const problem of PROBLEMS) {
      const index = set.length;
      const message = [
        pick(OPENERS),
        problem.statements[(round + Math.floor(random() * 3)) % problem.statements.length],
        random() < 0.7 ? pick(problem.details) : '',
        random() < 0.6 ? pick(problem.questions) : '',
        pick(CLOSERS),
      ]
        .filter(Boolean)
        .join(' ');
      const parts: ConversationInput['parts'] = [{ type: 'message', role: 'user', body: message }];
      if (random() < 0.6) parts.push({ type: 'message', role: random() < 0.5 ? 'team-member' : 'assistant', body: pick(ANSWERS) });
      if (parts.length > 1 && random() < 0.4) parts.push({ type: 'message', role: 'user', body: pick(FOLLOW_UPS) });
      const daysAgo = Math.floor(random() * 70);
      set.push({
        problem: problem.key,
        input: {
          id: `${prefix}-${index + 1}`,
          subject: random() < 0.6 ? pick(problem.subjects) : undefined,
          metadata: {
            url: `https://support.example.com/conversations/${index + 1}`,
            attributes: { source: SOURCES[index % SOURCES.length], channel: 'chat' },
            createdAt: new Date(now.getTime() - daysAgo * 24 * 3600 * 1000 - index * 60_000).toISOString(),
          },
          parts,
        },
      });
    }
  }
  return set;
}
