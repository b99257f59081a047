import * as resolvers from '../../resolvers/system.ts';
import { getHealth, getReadiness, whoami } from '../catalogue/system.ts';
import { operationField } from '../operation-field.ts';
import { HealthType, WhoAmIType } from '../types/system.ts';

operationField(getHealth, HealthType, (_args, ctx) => resolvers.health(ctx));
operationField(getReadiness, HealthType, (_args, ctx) => resolvers.readiness(ctx));
operationField(whoami, WhoAmIType, (_args, ctx) => resolvers.whoami(ctx));
