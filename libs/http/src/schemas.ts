import { z } from 'zod';

/** A boolean query parameter: accepts true/false/1/0 and rejects anything else. */
export const booleanQuery = z
  .enum(['true', 'false', '1', '0'], { message: 'must be true or false' })
  .transform((value) => value === 'true' || value === '1');
