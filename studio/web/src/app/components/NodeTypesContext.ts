import { createContext } from 'react';
import type { NodeTypeInfo } from '../api/types';

/** Node type descriptions by type id, for nodes that render themselves. */
export const NodeTypesContext = createContext<Map<string, NodeTypeInfo>>(new Map());
