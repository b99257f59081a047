import * as resolvers from '../../resolvers/account.ts';
import { getLimits, getUsage } from '../catalogue/account.ts';
import { operationField } from '../operation-field.ts';
import { LimitsType, UsageType } from '../types/account.ts';

operationField(getUsage, UsageType, (_args, ctx) => resolvers.usage(ctx));
operationField(getLimits, LimitsType, (_args, ctx) => resolvers.limits(ctx));
