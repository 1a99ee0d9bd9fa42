"""cfn-lint 1.51.0 with repeated work of its own done once: the same rules, the same
findings (template-tests/cfnlint_test.go runs it with cfn-lint's own arguments).

For each Fn::GetAtt, cfn-lint checks the resource's name against an enum of every resource
in the template, comparing them one by one in Python (E3030's enum through jsonschema's
equal), and builds the attributes of every resource again (Template.get_valid_getatts).
Both grow with resources times GetAtts (our templates: ~435 resources, ~765 GetAtts each);
the six templates took 51.6 and 55.1 CPU-s with cfn-lint alone, 42.5 and 45.3 through here
(2026-12-01, two rounds, each pair side by side).

Here a string found among an enum's values passes at once (equal() of two strings, neither
"true" nor "false" in any case, is ==, so cfn-lint's scan could only pass it too), and
anything else takes cfn-lint's own path, findings and messages included; a template's
GetAtts are built once, from resources that do not change while it is linted, and so is
whether it is the CDK's (a rule asked per Fn::Join, reading every resource).

Five more (2026-12-02), each said where it is made: a dataclass's fields are listed once,
a validator class is made once per set of arguments, E1101 finds the rules of a keyword
through an index, an extended validator is made without a throwaway first one, and a
Context evolves by copying its fields. The five templates and the canary: 49.6, 43.2 ->
30.8, 35.4 CPU-s with the first four, then 34.6, 32.2 -> 29.2, 27.0 with the fifth (busy
machine, pairs side by side); the same output, and the same 17 findings on a template
seeded with twenty mistakes.

Another version of cfn-lint runs as it is: the test fails on it anyway, as its findings
were reviewed with 1.51.0.
"""

import dataclasses
import os
import sys
import types

import cfnlint.context.context as context_module
import cfnlint.helpers as helpers
import cfnlint.jsonschema._filter as filter_module
import cfnlint.jsonschema._keywords as keywords
import cfnlint.jsonschema.validators as validators
from cfnlint.context.context import Context
from cfnlint.jsonschema._utils import Unset
from cfnlint.rules.jsonschema.Base import BaseJsonSchema
from cfnlint.runner.cli import main
from cfnlint.schema.resolver import RefResolver
from cfnlint.template.template import Template
from cfnlint.version import __version__

_enum = keywords.enum
_getatts = Template.get_valid_getatts


def _enum_found_first(validator, enums, instance, schema):
    if (
        isinstance(enums, list)
        and isinstance(instance, str)
        and instance.lower() not in ("true", "false")
        and instance in enums
    ):
        return
    yield from _enum(validator, enums, instance, schema)


def _getatts_once(self):
    cached = self.__dict__.get("_getatts_once")
    if cached is None:
        cached = self.__dict__["_getatts_once"] = _getatts(self)
    return cached


_is_cdk = Template.is_cdk_template


def _is_cdk_once(self):
    cached = self.__dict__.get("_is_cdk_once")
    if cached is None:
        cached = self.__dict__["_is_cdk_once"] = _is_cdk(self)
    return cached


# dataclasses.fields(cls) filters the class's fields anew on every call; cfn-lint asks it
# each time it evolves a Context, a Path, a FunctionFilter or a validator (~130,000 times
# per template). The fields of a dataclass are fixed once it is made, so each class's tuple
# is the same on every call.
_fields_of = {}


def _fields_once(class_or_instance):
    cls = class_or_instance if isinstance(class_or_instance, type) else type(class_or_instance)
    found = _fields_of.get(cls)
    if found is None:
        found = _fields_of[cls] = dataclasses.fields(class_or_instance)
    return found


# validators.create makes a new Validator dataclass on every call, and the JSON schema rules
# call it (through Validator.extend) each time they validate a resource or a function: ~1,400
# classes per template, each compiled from source. A class depends only on the three
# arguments, so equal arguments get the class made the first time; arguments that cannot
# be compared by value take cfn-lint's own path.
_create = validators.create
_created = {}


def _frozen(value):
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    return value


def _create_once(validators=None, function_filter=None, fn_resolvers=None):
    try:
        key = (
            frozenset((validators or {}).items()),
            None
            if function_filter is None
            else (type(function_filter),)
            + tuple((f.name, _frozen(getattr(function_filter, f.name))) for f in _fields_once(function_filter)),
            frozenset((fn_resolvers or {}).items()),
        )
        found = _created.get(key)
    except TypeError:
        return _create(validators, function_filter, fn_resolvers)
    if found is None:
        found = _created[key] = _create(validators, function_filter, fn_resolvers)
    return found


# E1101's cfnLint runs, for every value it is asked about, each keyword against every child
# rule's keywords (~17,000 calls per template, each over all its child rules). The rules
# that take a keyword, in the order of the child rules, are the same until the child rules
# change, so they are listed once per set of child rules.
def _cfn_lint_indexed(self, validator, keywords, instance, schema):
    validator = validator.evolve(
        function_filter=validator.function_filter.evolve(
            add_cfn_lint_keyword=False,
        )
    )
    rules = self.child_rules
    index = self.__dict__.get("_keyword_index")
    # A dict's == takes a value that is the same object as equal at once (cfn-lint reassigns
    # the same rules before each template).
    if index is None or index[0] != rules:
        by_keyword = {}
        for rule in rules.values():
            if rule is None or not rule.id:
                continue
            for rule_keyword in rule.keywords:
                by_keyword.setdefault(rule_keyword, []).append(rule)
        index = self.__dict__["_keyword_index"] = (dict(rules), by_keyword)
    for keyword in keywords:
        for rule in index[1].get(keyword, ()):
            for err in rule.validate(validator, keyword, instance, schema):
                if err.rule is None:
                    if isinstance(err.validator, Unset):
                        err.rule = rule
                yield err


# The JSON schema rules extend a validator by making one with the class's defaults and then
# evolving it into the one they use: the first's defaults (an empty Template, its context, a
# resolver) are built and thrown away, ~1,400 times per template. Made directly from the
# values the evolve gives, it is the same validator.
def _extend_validator_direct(self, validator, schema, context, validators=None):
    all_validators = self._get_validators()
    if validators:
        all_validators.update(validators)
    return validator.extend(validators=all_validators)(
        schema=schema,
        cfn=validator.cfn,
        context=context,
        resolver=RefResolver.from_schema(schema),
    )


# Context.evolve, ~130,000 times per template, builds the new context through the frozen
# dataclass's __init__, which sets each of its ~20 fields one call at a time. Context has no
# __post_init__ and no attribute but its fields, all set by __init__, so the same context is
# a copy of the fields with the given ones replaced (ref_values merged, as evolve merges
# them). A name that is not a field, or a subclass, takes cfn-lint's own path (its error).
_context_evolve = Context.evolve
_context_fields = frozenset(f.name for f in dataclasses.fields(Context) if f.init)


def _context_evolve_copied(self, **kwargs):
    if type(self) is not Context or not _context_fields.issuperset(kwargs):
        return _context_evolve(self, **kwargs)
    if "ref_values" in kwargs:
        ref_values = self.ref_values.copy()
        ref_values.update(kwargs["ref_values"])
        kwargs["ref_values"] = ref_values
    evolved = object.__new__(Context)
    fields = evolved.__dict__
    fields.update(self.__dict__)
    fields.update(kwargs)
    return evolved


_create_rules = helpers.create_rules


def _create_rules_indexed(*args, **kwargs):
    rules = _create_rules(*args, **kwargs)
    for rule in rules:
        if rule.id == "E1101" and type(rule).__name__ == "CfnLint":
            rule.cfnLint = types.MethodType(_cfn_lint_indexed, rule)
    return rules


if __version__ == "1.51.0":
    # cfn-lint loads its rules from their files as it starts, and E3030's imports enum from
    # here then.
    keywords.enum = _enum_found_first
    Template.get_valid_getatts = _getatts_once
    Template.is_cdk_template = _is_cdk_once
    for module in (context_module, filter_module, validators):
        module.fields = _fields_once
    validators.create = _create_once
    helpers.create_rules = _create_rules_indexed
    BaseJsonSchema.extend_validator = _extend_validator_direct
    Context.evolve = _context_evolve_copied

if __name__ == "__main__":
    # template-tests/cfnlint_test.go checks the version in the run it lints with.
    if os.environ.get("CFN_LINT_PY_SAY_VERSION") == "1":
        print(f"cfn-lint {__version__}", flush=True)
    sys.exit(main())
