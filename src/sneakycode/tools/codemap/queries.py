"""Tag queries: where each language defines a name (`@def`) and where it uses one (`@ref`).

Written here, small on purpose: tree-sitter-language-pack 0.13 ships no tags.scm for its grammars (only the
C# wheel has one), and the map needs only names, not the kinds of tags editors show. A definition is a
function, method, class or type (and a Python module constant); a reference is a call, a construction, a
type named in code, or an imported name, the uses that say one file depends on another. Each query is
compiled once per process; tests/tools/codemap compile every one of them against the pack's grammars.
"""

from __future__ import annotations

_PYTHON = """
(function_definition name: (identifier) @def)
(class_definition name: (identifier) @def)
(module (assignment left: (identifier) @def))
(call function: (identifier) @ref)
(call function: (attribute attribute: (identifier) @ref))
(class_definition superclasses: (argument_list (identifier) @ref))
(type (identifier) @ref)
(import_from_statement name: (dotted_name (identifier) @ref))
"""

_JAVASCRIPT = """
(function_declaration name: (identifier) @def)
(generator_function_declaration name: (identifier) @def)
(class_declaration name: (_) @def)
(method_definition name: (property_identifier) @def)
(variable_declarator name: (identifier) @def value: [(arrow_function) (function_expression)])
(call_expression function: (identifier) @ref)
(call_expression function: (member_expression property: (property_identifier) @ref))
(new_expression constructor: (identifier) @ref)
(class_heritage (identifier) @ref)
"""

_TYPESCRIPT = """
(function_declaration name: (identifier) @def)
(class_declaration name: (type_identifier) @def)
(abstract_class_declaration name: (type_identifier) @def)
(interface_declaration name: (type_identifier) @def)
(type_alias_declaration name: (type_identifier) @def)
(enum_declaration name: (identifier) @def)
(method_definition name: (property_identifier) @def)
(variable_declarator name: (identifier) @def value: [(arrow_function) (function_expression)])
(call_expression function: (identifier) @ref)
(call_expression function: (member_expression property: (property_identifier) @ref))
(new_expression constructor: (identifier) @ref)
(type_identifier) @ref
(extends_clause value: (identifier) @ref)
"""

_GO = """
(function_declaration name: (identifier) @def)
(method_declaration name: (field_identifier) @def)
(type_spec name: (type_identifier) @def)
(call_expression function: (identifier) @ref)
(call_expression function: (selector_expression field: (field_identifier) @ref))
(type_identifier) @ref
"""

_RUST = """
(function_item name: (identifier) @def)
(function_signature_item name: (identifier) @def)
(struct_item name: (type_identifier) @def)
(enum_item name: (type_identifier) @def)
(trait_item name: (type_identifier) @def)
(type_item name: (type_identifier) @def)
(macro_definition name: (identifier) @def)
(call_expression function: (identifier) @ref)
(call_expression function: (field_expression field: (field_identifier) @ref))
(call_expression function: (scoped_identifier name: (identifier) @ref))
(macro_invocation macro: (identifier) @ref)
(type_identifier) @ref
"""

_JAVA = """
(class_declaration name: (identifier) @def)
(interface_declaration name: (identifier) @def)
(enum_declaration name: (identifier) @def)
(record_declaration name: (identifier) @def)
(method_declaration name: (identifier) @def)
(method_invocation name: (identifier) @ref)
(object_creation_expression type: (type_identifier) @ref)
(type_identifier) @ref
"""

_C_DEFS = """
(function_definition declarator: (function_declarator declarator: (identifier) @def))
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @def)))
(declaration declarator: (function_declarator declarator: (identifier) @def))
(struct_specifier name: (type_identifier) @def body: (_))
(union_specifier name: (type_identifier) @def body: (_))
(enum_specifier name: (type_identifier) @def body: (_))
(type_definition declarator: (type_identifier) @def)
(preproc_function_def name: (identifier) @def)
(call_expression function: (identifier) @ref)
(type_identifier) @ref
"""

_C = _C_DEFS + """
(call_expression function: (field_expression field: (field_identifier) @ref))
"""

_CPP = _C_DEFS + """
(function_definition declarator: (function_declarator declarator: (field_identifier) @def))
(function_definition declarator: (function_declarator declarator: (qualified_identifier name: (identifier) @def)))
(field_declaration declarator: (function_declarator declarator: (field_identifier) @def))
(class_specifier name: (type_identifier) @def body: (_))
(call_expression function: (field_expression field: (field_identifier) @ref))
(call_expression function: (qualified_identifier name: (identifier) @ref))
"""

_RUBY = """
(method name: (_) @def)
(singleton_method name: (_) @def)
(class name: (constant) @def)
(module name: (constant) @def)
(call method: (identifier) @ref)
(superclass (constant) @ref)
(call receiver: (constant) @ref)
"""

_CSHARP = """
(class_declaration name: (identifier) @def)
(interface_declaration name: (identifier) @def)
(struct_declaration name: (identifier) @def)
(enum_declaration name: (identifier) @def)
(record_declaration name: (identifier) @def)
(method_declaration name: (identifier) @def)
(invocation_expression function: (identifier) @ref)
(invocation_expression function: (member_access_expression name: (identifier) @ref))
(object_creation_expression type: (identifier) @ref)
(base_list (identifier) @ref)
(variable_declaration type: (identifier) @ref)
"""

_PHP = """
(function_definition name: (name) @def)
(class_declaration name: (name) @def)
(interface_declaration name: (name) @def)
(trait_declaration name: (name) @def)
(method_declaration name: (name) @def)
(function_call_expression function: (name) @ref)
(member_call_expression name: (name) @ref)
(scoped_call_expression name: (name) @ref)
(object_creation_expression (name) @ref)
(base_clause (name) @ref)
"""

# Language names are tree-sitter-language-pack's (those diagnostics/languages.py gives a file).
TAG_QUERIES: dict[str, str] = {
    "python": _PYTHON,
    "javascript": _JAVASCRIPT,
    "typescript": _TYPESCRIPT,
    "tsx": _TYPESCRIPT,
    "go": _GO,
    "rust": _RUST,
    "java": _JAVA,
    "c": _C,
    "cpp": _CPP,
    "ruby": _RUBY,
    "csharp": _CSHARP,
    "php": _PHP,
}
