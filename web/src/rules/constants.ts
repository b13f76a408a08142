import type { ActionType } from '../types';

export const ACTION_TYPES_ORDER: ActionType[] = ['set_variable', 'store_variable', 'delete_variable', 'http_request'];
