import { idSchema } from '@quire/http';
import { z } from 'zod';

/** Path parameters every module's routes share (one id schema: a 400 naming the parameter). */

export const organizationParams = z.object({ organizationId: idSchema });
export const spaceParams = z.object({ spaceId: idSchema });
export const collectionParams = z.object({ collectionId: idSchema });
/** A change request of a space, by id or by its number in the space. */
export const changeRequestParams = spaceParams.extend({ changeRequestId: idSchema });
