/* soccerbt.native._recording: the replay recorder's per-tick hot paths, compiled.
 *
 * This file holds the module, the status slot and the slot tables; encode.c the encoders, and
 * recording.h what the two share.
 *
 * Each function does what its pure-Python twin does (the fallback when this module was not
 * built; the twins live beside their users, soccerbt/native/__init__.py says where); tests run
 * both on the same inputs and compare, and a match recorded either way gives the same bytes.
 *
 *   StatusSlot          TreeNode's `_bt_status` while a tree is watched (soccerbt.nodes.observe):
 *                       the same slot, and a change is appended to env.status_log and handed
 *                       to env.status_observer.
 *   setup_classes(entry_cls, env_cls)
 *                       the slots of the blackboard's Entry and of TreeEnv, read in place.
 *   setup(pose_cls, json_text)
 *                       the Pose2D class and the JSON rendering of "other" values, once.
 *   bb_changes(entries, seqs, raws, adapter, role_index, keys)
 *                       a tick's blackboard changes as soccerbt.Tick's repeated `changes`
 *                       (soccerbt.log.proto), updating `seqs` and `raws` in place; (bytes, role
 *                       written).
 *   encode_tick(robot, step, tick, root, command, transitions, skipped, ticked, reasons, changes)
 *                       a robot's soccerbt.Tick from the command object, the flat status log,
 *                       the ticked nodes and the reasons (one line each), the changes appended.
 *   encode_inputs(robot, t_s, obs, packet, team, pad, estop)
 *                       a brain's soccerbt.BrainInputs (soccerbt.log.inputs).
 *   encode_truth(step, t_s, ball, gc, names, bodies)
 *                       a step's soccerbt.Truth from the ball and the robots' bodies.
 *   join_repeated(head, field, parts)
 *                       `head`, then each part as one entry of repeated field `field`.
 * (encode.c says how these bytes are the ones protobuf writes.)
 */
#include "recording.h"

PyObject *s_bt_status, *s_env, *s_status_log, *s_status_observer, *s_uid, *s_code;
PyObject *s_t_s, *s_camera_frame, *s_fallen, *s_odometry, *s_imu_yaw_rad, *s_head_pan_rad,
    *s_head_tilt_rad, *s_detections, *s_line_segments, *s_kind, *s_team, *s_confidence, *s_value_attr;
PyObject *s_vx_mps, *s_vy_mps, *s_vtheta_radps, *s_kick, *s_direction_rad, *s_strength;
PyObject *s_sequence_id, *s_value, *s_writer, *s_writer_seq, *s_x_m, *s_y_m, *s_theta_rad, *s_removed;
PyObject *g_pose_cls = NULL, *g_json_text = NULL;

/* ---------------------------------------------------------------- slots read in place */

/* A class with __slots__ keeps each slot at a fixed offset: the blackboard's Entry and the tree's
 * TreeEnv are read there (setup_classes), instead of through a type lookup per read. An object
 * of another class is read with PyObject_GetAttr. */

SlotTable g_entry = {NULL, {0}}, g_env = {NULL, {0}};

static int slot_table(SlotTable *t, PyObject *cls, PyObject **names, int n) {
    if (!PyType_Check(cls)) { PyErr_SetString(PyExc_TypeError, "setup_classes: a class"); return -1; }
    Py_ssize_t offsets[4] = {0, 0, 0, 0};
    for (int i = 0; i < n; i++) {
        PyObject *d = PyDict_GetItemWithError(((PyTypeObject *)cls)->tp_dict, names[i]);  /* borrowed */
        if (d == NULL || !PyObject_TypeCheck(d, &PyMemberDescr_Type)) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "setup_classes: %R is not a slot of %R", names[i], cls);
            return -1;
        }
        PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
        if (m->type != T_OBJECT_EX) {
            PyErr_Format(PyExc_TypeError, "setup_classes: %R is not an object slot", names[i]);
            return -1;
        }
        offsets[i] = m->offset;
    }
    Py_INCREF(cls);
    Py_XSETREF(t->type, (PyTypeObject *)cls);
    memcpy(t->offset, offsets, sizeof(offsets));
    return 0;
}

/* a new reference to slot `i` of `obj` (AttributeError when unset, as a read would say) */
PyObject *slot_get(SlotTable *t, int i, PyObject *obj, PyObject *name) {
    if (Py_TYPE(obj) != t->type) return PyObject_GetAttr(obj, name);
    PyObject *v = *(PyObject **)((char *)obj + t->offset[i]);
    if (v == NULL) { PyErr_SetObject(PyExc_AttributeError, name); return NULL; }
    Py_INCREF(v);
    return v;
}

/* status codes by identity: the few NodeStatus members (immutable enum members), each looked up
 * once and kept */
#define N_CODES 8
static PyObject *g_code_key[N_CODES], *g_code_val[N_CODES];

PyObject *status_code(PyObject *status) {  /* a new reference */
    for (int i = 0; i < N_CODES && g_code_key[i] != NULL; i++)
        if (g_code_key[i] == status) { Py_INCREF(g_code_val[i]); return g_code_val[i]; }
    PyObject *code = PyObject_GetAttr(status, s_code);
    if (code == NULL) return NULL;
    for (int i = 0; i < N_CODES; i++) {
        if (g_code_key[i] == NULL) {
            Py_INCREF(status); Py_INCREF(code);
            g_code_key[i] = status;
            g_code_val[i] = code;
            break;
        }
    }
    return code;
}

int float_attr(PyObject *obj, PyObject *name, double *out) {
    PyObject *v = PyObject_GetAttr(obj, name);
    if (v == NULL) return -1;
    *out = PyFloat_AsDouble(v);
    Py_DECREF(v);
    return (*out == -1.0 && PyErr_Occurred()) ? -1 : 0;
}

/* ---------------------------------------------------------------- StatusSlot */

/* TreeNode keeps `_bt_status`, `uid` and `env` in slots. While a tree is watched, TreeNode's own
 * `_bt_status` member is replaced by this descriptor (soccerbt.nodes.observe): it reads and
 * writes the same slot, and a store that changes it is reported to the node's env. Only the
 * status goes through it: the node's other attributes are read and stored as before. */

typedef struct {
    PyObject_HEAD
    PyTypeObject *node_type;                 /* TreeNode (a strong reference) */
    Py_ssize_t status_off, uid_off, env_off;
} StatusSlot;

static int member_offset(PyTypeObject *cls, const char *name, Py_ssize_t *out) {
    PyObject *key = PyUnicode_InternFromString(name);
    if (key == NULL) return -1;
    PyObject *d = PyDict_GetItemWithError(cls->tp_dict, key);  /* borrowed */
    Py_DECREF(key);
    if (d == NULL || !PyObject_TypeCheck(d, &PyMemberDescr_Type)
        || ((PyMemberDescrObject *)d)->d_member->type != T_OBJECT_EX) {
        if (!PyErr_Occurred()) PyErr_Format(PyExc_TypeError, "StatusSlot: %s is not an object slot of %R", name, cls);
        return -1;
    }
    *out = ((PyMemberDescrObject *)d)->d_member->offset;
    return 0;
}

static PyObject *StatusSlot_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *cls;
    if (!PyArg_ParseTuple(args, "O!:StatusSlot", &PyType_Type, &cls)) return NULL;
    StatusSlot *self = (StatusSlot *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    if (member_offset((PyTypeObject *)cls, "_bt_status", &self->status_off) < 0 ||
        member_offset((PyTypeObject *)cls, "uid", &self->uid_off) < 0 ||
        member_offset((PyTypeObject *)cls, "env", &self->env_off) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    Py_INCREF(cls);
    self->node_type = (PyTypeObject *)cls;
    return (PyObject *)self;
}

static void StatusSlot_dealloc(StatusSlot *self) {
    Py_XDECREF(self->node_type);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

#define SLOT_AT(obj, off) (*(PyObject **)((char *)(obj) + (off)))

static int check_node(StatusSlot *self, PyObject *obj) {
    if (PyObject_TypeCheck(obj, self->node_type)) return 0;
    PyErr_Format(PyExc_TypeError, "_bt_status of a %s, not of a %s", self->node_type->tp_name, Py_TYPE(obj)->tp_name);
    return -1;
}

static PyObject *StatusSlot_get(PyObject *op, PyObject *obj, PyObject *type) {
    StatusSlot *self = (StatusSlot *)op;
    if (obj == NULL || obj == Py_None) { Py_INCREF(op); return op; }
    if (check_node(self, obj) < 0) return NULL;
    PyObject *v = SLOT_AT(obj, self->status_off);
    if (v == NULL) { PyErr_SetObject(PyExc_AttributeError, s_bt_status); return NULL; }
    Py_INCREF(v);
    return v;
}

/* the change at the end of env.status_log (uid, previous code, new code), then to env.status_observer */
static int report(StatusSlot *self, PyObject *node, PyObject *previous, PyObject *status) {
    PyObject *env = SLOT_AT(node, self->env_off);
    if (env == NULL) return 0;  /* a node still being built: nobody watches it yet */
    Py_INCREF(env);
    int rc = -1;
    PyObject *log = NULL, *observer = NULL;
    log = slot_get(&g_env, V_STATUS_LOG, env, s_status_log);
    if (log == NULL) goto done;
    if (log != Py_None) {
        PyObject *uid = SLOT_AT(node, self->uid_off);
        if (uid == NULL) { PyErr_SetObject(PyExc_AttributeError, s_uid); goto done; }
        PyObject *pc = status_code(previous);
        if (pc == NULL) goto done;
        PyObject *nc = status_code(status);
        if (nc == NULL) { Py_DECREF(pc); goto done; }
        int ok;
        if (PyList_CheckExact(log)) {
            ok = PyList_Append(log, uid) == 0 && PyList_Append(log, pc) == 0 && PyList_Append(log, nc) == 0;
        } else {  /* `log += (uid, previous, new)`, as the Python twin writes it */
            PyObject *t = PyTuple_Pack(3, uid, pc, nc);
            PyObject *r = t == NULL ? NULL : PyNumber_InPlaceAdd(log, t);
            Py_XDECREF(t);
            ok = r != NULL;
            Py_XDECREF(r);
        }
        Py_DECREF(pc); Py_DECREF(nc);
        if (!ok) goto done;
    }
    observer = slot_get(&g_env, V_STATUS_OBSERVER, env, s_status_observer);
    if (observer == NULL) goto done;
    if (observer != Py_None) {
        PyObject *r = PyObject_CallFunctionObjArgs(observer, node, previous, status, NULL);
        if (r == NULL) goto done;
        Py_DECREF(r);
    }
    rc = 0;
done:
    Py_XDECREF(observer); Py_XDECREF(log); Py_DECREF(env);
    return rc;
}

static int StatusSlot_set(PyObject *op, PyObject *obj, PyObject *value) {
    StatusSlot *self = (StatusSlot *)op;
    if (check_node(self, obj) < 0) return -1;
    PyObject *previous = SLOT_AT(obj, self->status_off);  /* the reference the slot held: now ours */
    if (value == NULL) {  /* del node._bt_status, as the member does it */
        if (previous == NULL) { PyErr_SetObject(PyExc_AttributeError, s_bt_status); return -1; }
        SLOT_AT(obj, self->status_off) = NULL;
        Py_DECREF(previous);
        return 0;
    }
    Py_INCREF(value);
    SLOT_AT(obj, self->status_off) = value;
    int rc = 0;
    if (previous != NULL && previous != value) rc = report(self, obj, previous, value);
    Py_XDECREF(previous);
    return rc;
}

static PyTypeObject StatusSlotType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "soccerbt.native._recording.StatusSlot",
    .tp_basicsize = sizeof(StatusSlot),
    .tp_dealloc = (destructor)StatusSlot_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "StatusSlot(TreeNode): TreeNode._bt_status while a tree is watched (see soccerbt.nodes.observe).",
    .tp_descr_get = StatusSlot_get,
    .tp_descr_set = StatusSlot_set,
    .tp_new = StatusSlot_new,
};

/* ---------------------------------------------------------------- setup */

static PyObject *setup(PyObject *mod, PyObject *args) {
    PyObject *pose, *json_text;
    if (!PyArg_ParseTuple(args, "OO:setup", &pose, &json_text)) return NULL;
    Py_INCREF(pose); Py_INCREF(json_text);
    Py_XSETREF(g_pose_cls, pose);
    Py_XSETREF(g_json_text, json_text);
    Py_RETURN_NONE;
}

static PyObject *setup_classes(PyObject *mod, PyObject *args) {
    PyObject *entry_cls, *env_cls;
    if (!PyArg_ParseTuple(args, "OO:setup_classes", &entry_cls, &env_cls)) return NULL;
    PyObject *entry_names[4] = {s_sequence_id, s_value, s_writer, s_writer_seq};
    PyObject *env_names[2] = {s_status_log, s_status_observer};
    if (slot_table(&g_entry, entry_cls, entry_names, 4) < 0 || slot_table(&g_env, env_cls, env_names, 2) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------- module */

static PyMethodDef methods[] = {
    {"setup_classes", setup_classes, METH_VARARGS,
     "setup_classes(entry_cls, env_cls): the blackboard Entry's and the TreeEnv's slots, read in place."},
    {"setup", setup, METH_VARARGS, "setup(pose_cls, json_text): the Pose2D class and the JSON rendering of other values."},
    {"bb_changes", bb_changes, METH_VARARGS,
     "bb_changes(entries, seqs, raws, adapter, role_index, keys) -> (bytes, role written): a tick's changes."},
    {"encode_tick", encode_tick, METH_VARARGS,
     "encode_tick(robot, step, tick, root, command, transitions, skipped, ticked, reasons, changes) -> soccerbt.Tick."},
    {"encode_inputs", encode_inputs, METH_VARARGS,
     "encode_inputs(robot, t_s, obs, packet, team, pad, estop) -> soccerbt.BrainInputs."},
    {"encode_truth", encode_truth, METH_VARARGS,
     "encode_truth(step, t_s, ball, gc, names, bodies) -> soccerbt.Truth."},
    {"join_repeated", join_repeated, METH_VARARGS,
     "join_repeated(head, field, parts) -> bytes: head, then each part as an entry of a repeated field."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "soccerbt.native._recording",
    "The replay recorder's per-tick hot paths, compiled (see soccerbt.native).", -1, methods,
};

#define INTERN(var, text) if ((var = PyUnicode_InternFromString(text)) == NULL) return NULL

PyMODINIT_FUNC PyInit__recording(void) {
    INTERN(s_bt_status, "_bt_status");
    INTERN(s_env, "env");
    INTERN(s_status_log, "status_log");
    INTERN(s_status_observer, "status_observer");
    INTERN(s_uid, "uid");
    INTERN(s_code, "_code");
    INTERN(s_sequence_id, "sequence_id");
    INTERN(s_value, "value");
    INTERN(s_writer, "writer");
    INTERN(s_writer_seq, "writer_seq");
    INTERN(s_x_m, "x_m");
    INTERN(s_y_m, "y_m");
    INTERN(s_theta_rad, "theta_rad");
    INTERN(s_removed, "removed");
    INTERN(s_t_s, "t_s");
    INTERN(s_vx_mps, "vx_mps");
    INTERN(s_vy_mps, "vy_mps");
    INTERN(s_vtheta_radps, "vtheta_radps");
    INTERN(s_kick, "kick");
    INTERN(s_direction_rad, "direction_rad");
    INTERN(s_strength, "strength");
    INTERN(s_camera_frame, "camera_frame");
    INTERN(s_fallen, "fallen");
    INTERN(s_odometry, "odometry");
    INTERN(s_imu_yaw_rad, "imu_yaw_rad");
    INTERN(s_head_pan_rad, "head_pan_rad");
    INTERN(s_head_tilt_rad, "head_tilt_rad");
    INTERN(s_detections, "detections");
    INTERN(s_line_segments, "line_segments");
    INTERN(s_kind, "kind");
    INTERN(s_team, "team");
    INTERN(s_confidence, "confidence");
    INTERN(s_value_attr, "value");
    if (PyType_Ready(&StatusSlotType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    /* soccerbt.native.API_VERSION: a build of another version (a stale in-place build) is not used */
    if (PyModule_AddIntConstant(m, "API_VERSION", 9) < 0) { Py_DECREF(m); return NULL; }
    Py_INCREF(&StatusSlotType);
    if (PyModule_AddObject(m, "StatusSlot", (PyObject *)&StatusSlotType) < 0) {
        Py_DECREF(&StatusSlotType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
