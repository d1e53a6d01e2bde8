/* soccerbt.native._recording's encoders: the log's protobuf messages (soccerbt.log.proto) written
 * straight from the recorder's objects: a tick's blackboard changes, a robot's tick, a brain's
 * inputs and the truth of a step, and a repeated field joined under a head.
 *
 * The bytes are those protobuf's own serializer writes for the same message (its canonical form:
 * fields in number order, proto3 scalars left out at their default, a float or double left out
 * only when all its bits are zero so that -0.0 stays, packed repeated scalars, members of a
 * oneof always written); the twins build the messages with protobuf and serialize them, and the
 * tests compare both. */
#include "recording.h"

/* ---------------------------------------------------------------- protobuf's wire format */

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };

static int pb_varint(Buf *b, uint64_t v) {
    unsigned char tmp[10];
    int n = 0;
    while (v >= 0x80) { tmp[n++] = (unsigned char)(v | 0x80); v >>= 7; }
    tmp[n++] = (unsigned char)v;
    return buf_put(b, tmp, n);
}

static int pb_tag(Buf *b, unsigned field, unsigned wire) { return pb_varint(b, ((uint64_t)field << 3) | wire); }

/* a varint field; `always`: a oneof member, written at 0 too */
static int pb_uint(Buf *b, unsigned field, uint64_t v, int always) {
    if (v == 0 && !always) return 0;
    return (pb_tag(b, field, WT_VARINT) < 0 || pb_varint(b, v) < 0) ? -1 : 0;
}

static int pb_int32(Buf *b, unsigned field, long v) {  /* a negative int32 is ten bytes, sign-extended */
    return pb_uint(b, field, (uint64_t)(int64_t)v, 0);
}

static int pb_float(Buf *b, unsigned field, double v, int always) {
    float f = (float)v;
    uint32_t bits;
    memcpy(&bits, &f, 4);
    if (bits == 0 && !always) return 0;
    unsigned char p[4] = {(unsigned char)bits, (unsigned char)(bits >> 8), (unsigned char)(bits >> 16),
                          (unsigned char)(bits >> 24)};
    return (pb_tag(b, field, WT_I32) < 0 || buf_put(b, p, 4) < 0) ? -1 : 0;
}

static int pb_double(Buf *b, unsigned field, double v) {
    uint64_t bits;
    memcpy(&bits, &v, 8);
    if (bits == 0) return 0;
    unsigned char p[8];
    for (int k = 0; k < 8; k++) p[k] = (unsigned char)(bits >> (8 * k));
    return (pb_tag(b, field, WT_I64) < 0 || buf_put(b, p, 8) < 0) ? -1 : 0;
}

/* a length-delimited field: `always` writes an empty one too (a set submessage, a oneof member) */
static int pb_bytes(Buf *b, unsigned field, const char *data, Py_ssize_t n, int always) {
    if (n == 0 && !always) return 0;
    return (pb_tag(b, field, WT_LEN) < 0 || pb_varint(b, (uint64_t)n) < 0 || buf_put(b, data, n) < 0) ? -1 : 0;
}

static int pb_sub(Buf *b, unsigned field, const Buf *sub) {
    return pb_bytes(b, field, sub->data ? sub->data : "", sub->len, 1);
}

/* a str's UTF-8 (kept by the str object: nothing to free), or the text of str(obj) in *keep */
static const char *utf8_of(PyObject *obj, Py_ssize_t *n, PyObject **keep) {
    *keep = NULL;
    if (!PyUnicode_Check(obj)) {
        if ((*keep = PyObject_Str(obj)) == NULL) return NULL;
        obj = *keep;
    }
    const char *s = PyUnicode_AsUTF8AndSize(obj, n);
    if (s == NULL) Py_CLEAR(*keep);
    return s;
}

static int pb_text(Buf *b, unsigned field, PyObject *text, int always) {
    Py_ssize_t n;
    PyObject *keep;
    const char *s = utf8_of(text, &n, &keep);
    if (s == NULL) return -1;
    int rc = pb_bytes(b, field, s, n, always);
    Py_XDECREF(keep);
    return rc;
}

static int float_attr_field(Buf *b, unsigned field, PyObject *obj, PyObject *name) {
    double v;
    if (float_attr(obj, name, &v) < 0) return -1;
    return pb_float(b, field, v, 0);
}

static int double_attr_field(Buf *b, unsigned field, PyObject *obj, PyObject *name) {
    double v;
    if (float_attr(obj, name, &v) < 0) return -1;
    return pb_double(b, field, v);
}

static int truthy_attr(PyObject *obj, PyObject *name) {
    PyObject *v = PyObject_GetAttr(obj, name);
    if (v == NULL) return -1;
    int t = PyObject_IsTrue(v);
    Py_DECREF(v);
    return t;
}

static int uint_of(PyObject *v, uint64_t *out, const char *what) {  /* a whole number of 0 or more */
    unsigned long long u = PyLong_AsUnsignedLongLong(v);
    if (u == (unsigned long long)-1 && PyErr_Occurred()) {
        if (PyErr_ExceptionMatches(PyExc_OverflowError) || PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "%s: not a whole number of 0 or more", what);
        }
        return -1;
    }
    *out = u;
    return 0;
}

/* ---------------------------------------------------------------- bb_changes */

/* 1: every item an exact float; 0: not; the tuple is non-empty */
static int all_floats(PyObject *t) {
    Py_ssize_t n = PyTuple_GET_SIZE(t);
    for (Py_ssize_t i = 0; i < n; i++)
        if (!PyFloat_CheckExact(PyTuple_GET_ITEM(t, i))) return 0;
    return 1;
}

static int all_points(PyObject *t) {
    Py_ssize_t n = PyTuple_GET_SIZE(t);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *p = PyTuple_GET_ITEM(t, i);
        if (!PyTuple_CheckExact(p) || PyTuple_GET_SIZE(p) != 2 || !all_floats(p)) return 0;
    }
    return 1;
}

/* Floats{values: packed floats} of the exact floats of `items` (n of them), as field `field` */
static int pb_floats_message(Buf *b, unsigned field, PyObject *const *items, Py_ssize_t n) {
    Buf packed = {0}, sub = {0};
    int rc = 0;
    for (Py_ssize_t k = 0; rc == 0 && k < n; k++) {
        float f = (float)PyFloat_AS_DOUBLE(items[k]);
        uint32_t bits;
        memcpy(&bits, &f, 4);
        unsigned char p[4] = {(unsigned char)bits, (unsigned char)(bits >> 8), (unsigned char)(bits >> 16),
                              (unsigned char)(bits >> 24)};
        rc = buf_put(&packed, p, 4);
    }
    if (rc == 0) rc = pb_bytes(&sub, 1, packed.data ? packed.data : "", packed.len, 0);
    if (rc == 0) rc = pb_sub(b, field, &sub);
    buf_free(&packed); buf_free(&sub);
    return rc;
}

/* the value of a Change (its oneof `value`) */
static int put_value(Buf *c, PyObject *value) {
    PyTypeObject *cls = Py_TYPE(value);
    if (cls == &PyFloat_Type) return pb_float(c, 4, PyFloat_AS_DOUBLE(value), 1);
    if (cls == &PyBool_Type) return pb_uint(c, 5, value == Py_True, 1);
    if ((PyObject *)cls == g_pose_cls) {
        Buf pose = {0};
        int rc = (float_attr_field(&pose, 1, value, s_x_m) < 0 || float_attr_field(&pose, 2, value, s_y_m) < 0 ||
                  float_attr_field(&pose, 3, value, s_theta_rad) < 0 || pb_sub(c, 8, &pose) < 0) ? -1 : 0;
        buf_free(&pose);
        return rc;
    }
    if (cls == &PyTuple_Type && PyTuple_GET_SIZE(value) > 0 && all_floats(value))
        return pb_floats_message(c, 7, &PyTuple_GET_ITEM(value, 0), PyTuple_GET_SIZE(value));
    if (cls == &PyTuple_Type && PyTuple_GET_SIZE(value) > 0 && all_points(value)) {
        Py_ssize_t m = PyTuple_GET_SIZE(value);
        PyObject **flat = PyMem_New(PyObject *, 2 * m);
        if (flat == NULL) { PyErr_NoMemory(); return -1; }
        for (Py_ssize_t k = 0; k < m; k++) {
            PyObject *p = PyTuple_GET_ITEM(value, k);
            flat[2 * k] = PyTuple_GET_ITEM(p, 0);
            flat[2 * k + 1] = PyTuple_GET_ITEM(p, 1);
        }
        int rc = pb_floats_message(c, 9, flat, 2 * m);
        PyMem_Free(flat);
        return rc;
    }
    PyObject *text = PyObject_CallOneArg(g_json_text, value);
    if (text == NULL) return -1;
    int rc = pb_text(c, 6, text, 1);
    Py_DECREF(text);
    return rc;
}

PyObject *bb_changes(PyObject *mod, PyObject *args) {
    PyObject *entries, *seqs, *raws, *adapter, *keys;
    Py_ssize_t role_index;
    if (!PyArg_ParseTuple(args, "O!O!O!O!nO!:bb_changes", &PyList_Type, &entries, &PyList_Type, &seqs,
                          &PyList_Type, &raws, &PyList_Type, &adapter, &role_index, &PyList_Type, &keys))
        return NULL;
    if (g_pose_cls == NULL || g_json_text == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "bb_changes: setup() not called");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(entries);
    if (PyList_GET_SIZE(seqs) != n || PyList_GET_SIZE(raws) != n || PyList_GET_SIZE(adapter) != n ||
        PyList_GET_SIZE(keys) < n) {
        PyErr_SetString(PyExc_ValueError, "bb_changes: entries, seqs, raws, adapter and keys differ in length");
        return NULL;
    }
    Buf out = {0}, c = {0};
    int role_changed = 0;
    /* the sequence numbers first: the usual tick changes a few of the entries */
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *entry = PyList_GET_ITEM(entries, i);
        PyObject *seq = slot_get(&g_entry, E_SEQ, entry, s_sequence_id);
        if (seq == NULL) goto fail;
        PyObject *old = PyList_GET_ITEM(seqs, i);
        int same = PyObject_RichCompareBool(seq, old, Py_EQ);
        if (same < 0) { Py_DECREF(seq); goto fail; }
        if (same) { Py_DECREF(seq); continue; }
        PyList_SetItem(seqs, i, seq);  /* steals seq */
        PyObject *value = slot_get(&g_entry, E_VALUE, entry, s_value);
        if (value == NULL) goto fail;
        PyObject *before = PyList_GET_ITEM(raws, i);
        if (Py_TYPE(before) == Py_TYPE(value)) {
            PyObject *eq = PyObject_RichCompare(before, value, Py_EQ);  /* no identity shortcut: NaN != NaN */
            if (eq == NULL) { Py_DECREF(value); goto fail; }
            int truth = PyObject_IsTrue(eq);
            Py_DECREF(eq);
            if (truth < 0) { Py_DECREF(value); goto fail; }
            if (truth) { Py_DECREF(value); continue; }
        }
        Py_INCREF(value);
        PyList_SetItem(raws, i, value);  /* steals one reference; `value` keeps ours */
        if (i == role_index) role_changed = 1;
        /* the writer: the stamped node when its stamp is of this write, else the key's adapter */
        PyObject *wseq = slot_get(&g_entry, E_WRITER_SEQ, entry, s_writer_seq);
        if (wseq == NULL) { Py_DECREF(value); goto fail; }
        int stamped = PyObject_RichCompareBool(wseq, PyList_GET_ITEM(seqs, i), Py_EQ);
        Py_DECREF(wseq);
        if (stamped < 0) { Py_DECREF(value); goto fail; }
        PyObject *writer = stamped ? slot_get(&g_entry, E_WRITER, entry, s_writer)
                                   : (Py_INCREF(PyList_GET_ITEM(adapter, i)), PyList_GET_ITEM(adapter, i));
        if (writer == NULL) { Py_DECREF(value); goto fail; }
        long long w = PyLong_AsLongLong(writer);
        Py_DECREF(writer);
        if (w == -1 && PyErr_Occurred()) { Py_DECREF(value); goto fail; }
        if (w > 0xFFFFFFFFLL) {  /* a uid is a uint32, as protobuf's own field says */
            Py_DECREF(value);
            PyErr_SetString(PyExc_ValueError, "bb_changes: a writer uid out of the range of uint32");
            goto fail;
        }
        c.len = 0;
        int rc = pb_text(&c, 1, PyList_GET_ITEM(keys, i), 0);
        if (rc == 0) rc = w > 0 ? pb_uint(&c, 2, (uint64_t)w, 1) : pb_uint(&c, 3, (uint64_t)(w < -1 ? -1 - w : 0), 1);
        if (rc == 0) rc = put_value(&c, value);
        Py_DECREF(value);
        if (rc < 0 || pb_sub(&out, 10, &c) < 0) goto fail;  /* Tick.changes */
    }
    PyObject *bytes = PyBytes_FromStringAndSize(out.data ? out.data : "", out.len);
    buf_free(&out); buf_free(&c);
    if (bytes == NULL) return NULL;
    return Py_BuildValue("(NO)", bytes, role_changed ? Py_True : Py_False);
fail:
    buf_free(&out); buf_free(&c);
    return NULL;
}

/* ---------------------------------------------------------------- encode_tick */

/* a packed repeated uint32 field of a list of ints (or of the uids of a list of nodes) */
static int pb_packed_uids(Buf *b, unsigned field, PyObject *list, int of_nodes) {
    Py_ssize_t m = PyList_GET_SIZE(list);
    if (m == 0) return 0;
    Buf packed = {0};
    for (Py_ssize_t i = 0; i < m; i++) {
        PyObject *item = PyList_GET_ITEM(list, i);
        PyObject *uid = of_nodes ? PyObject_GetAttr(item, s_uid) : (Py_INCREF(item), item);
        if (uid == NULL) { buf_free(&packed); return -1; }
        uint64_t v;
        int rc = uint_of(uid, &v, "a uid");
        Py_DECREF(uid);
        if (rc < 0 || v > 0xFFFFFFFFu || pb_varint(&packed, v) < 0) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a uid out of the range of uint32");
            buf_free(&packed);
            return -1;
        }
    }
    int rc = pb_bytes(b, field, packed.data, packed.len, 1);
    buf_free(&packed);
    return rc;
}

static int put_command(Buf *b, PyObject *command) {
    Buf c = {0};
    PyObject *kick = NULL;
    int rc = (float_attr_field(&c, 1, command, s_vx_mps) < 0 || float_attr_field(&c, 2, command, s_vy_mps) < 0 ||
              float_attr_field(&c, 3, command, s_vtheta_radps) < 0 ||
              float_attr_field(&c, 4, command, s_head_pan_rad) < 0 ||
              float_attr_field(&c, 5, command, s_head_tilt_rad) < 0) ? -1 : 0;
    if (rc == 0 && (kick = PyObject_GetAttr(command, s_kick)) == NULL) rc = -1;
    if (rc == 0 && kick != Py_None)
        rc = (pb_uint(&c, 6, 1, 0) < 0 || float_attr_field(&c, 7, kick, s_direction_rad) < 0 ||
              float_attr_field(&c, 8, kick, s_strength) < 0) ? -1 : 0;
    if (rc == 0) rc = pb_sub(b, 5, &c);  /* Tick.command */
    Py_XDECREF(kick);
    buf_free(&c);
    return rc;
}

PyObject *encode_tick(PyObject *mod, PyObject *args) {
    unsigned long long step, tick;
    int root;
    PyObject *robot, *command, *transitions, *skipped, *ticked, *reasons, *changes;
    if (!PyArg_ParseTuple(args, "UKKiOO!O!OOS:encode_tick", &robot, &step, &tick, &root, &command, &PyList_Type,
                          &transitions, &PyList_Type, &skipped, &ticked, &reasons, &changes))
        return NULL;
    if (tick > 0xFFFFFFFFull || root < 0 || root > 5 || PyList_GET_SIZE(transitions) % 3) {
        PyErr_SetString(PyExc_ValueError, "encode_tick: a tick, root or transition list out of its range");
        return NULL;
    }
    if (reasons != Py_None && !PyDict_Check(reasons)) {
        PyErr_SetString(PyExc_TypeError, "encode_tick: reasons is a dict or None");
        return NULL;
    }
    if (ticked != Py_None && !PyList_Check(ticked)) {
        PyErr_SetString(PyExc_TypeError, "encode_tick: ticked is a list of nodes or None");
        return NULL;
    }
    Buf b = {0}, t = {0};
    PyObject *out = NULL;
    if (pb_text(&b, 1, robot, 0) < 0 || pb_uint(&b, 2, step, 0) < 0 || pb_uint(&b, 3, tick, 0) < 0 ||
        pb_uint(&b, 4, (uint64_t)root, 0) < 0 || put_command(&b, command) < 0)
        goto done;
    Py_ssize_t n3 = PyList_GET_SIZE(transitions);
    for (Py_ssize_t i = 0; i < n3; i += 3) {  /* flat (uid, previous, new) integers */
        uint64_t uid, prev, now;
        if (uint_of(PyList_GET_ITEM(transitions, i), &uid, "a transition's uid") < 0 ||
            uint_of(PyList_GET_ITEM(transitions, i + 1), &prev, "a transition's status") < 0 ||
            uint_of(PyList_GET_ITEM(transitions, i + 2), &now, "a transition's status") < 0)
            goto done;
        if (uid > 0xFFFFFFFFu || prev > 5 || now > 5) {
            PyErr_SetString(PyExc_ValueError, "encode_tick: a transition out of range");
            goto done;
        }
        t.len = 0;
        if (pb_uint(&t, 1, uid, 0) < 0 || pb_uint(&t, 2, prev, 0) < 0 || pb_uint(&t, 3, now, 0) < 0 ||
            pb_sub(&b, 6, &t) < 0)
            goto done;
    }
    if (pb_packed_uids(&b, 7, skipped, 0) < 0) goto done;
    if (ticked != Py_None && pb_packed_uids(&b, 8, ticked, 1) < 0) goto done;
    if (reasons != Py_None) {
        PyObject *key, *value;
        Py_ssize_t pos = 0;
        while (PyDict_Next(reasons, &pos, &key, &value)) {
            uint64_t uid;
            if (uint_of(key, &uid, "a reason's uid") < 0) goto done;
            if (uid > 0xFFFFFFFFu) { PyErr_SetString(PyExc_ValueError, "a reason's uid out of range"); goto done; }
            t.len = 0;
            if (pb_uint(&t, 1, uid, 0) < 0 || pb_text(&t, 2, value, 0) < 0 || pb_sub(&b, 9, &t) < 0) goto done;
        }
    }
    if (buf_put(&b, PyBytes_AS_STRING(changes), PyBytes_GET_SIZE(changes)) < 0) goto done;  /* field 10, last */
    out = PyBytes_FromStringAndSize(b.data ? b.data : "", b.len);
done:
    buf_free(&b); buf_free(&t);
    return out;
}

/* ---------------------------------------------------------------- encode_inputs */

static int team_code(PyObject *team, uint64_t *out) {
    if (team == Py_None) { *out = 0; return 0; }
    PyObject *v = PyObject_GetAttr(team, s_value_attr);
    if (v == NULL) return -1;
    long code = PyLong_AsLong(v);
    Py_DECREF(v);
    if (code == -1 && PyErr_Occurred()) return -1;
    if (code < 0 || code > 1000) { PyErr_SetString(PyExc_ValueError, "a team value out of range"); return -1; }
    *out = (uint64_t)(code + 1);
    return 0;
}

static int put_detection(Buf *b, PyObject *det) {
    Buf d = {0};
    PyObject *kind = NULL, *team = NULL;
    uint64_t tc = 0;
    int rc = ((kind = PyObject_GetAttr(det, s_kind)) == NULL || pb_text(&d, 1, kind, 0) < 0 ||
              (team = PyObject_GetAttr(det, s_team)) == NULL || team_code(team, &tc) < 0 ||
              pb_uint(&d, 2, tc, 0) < 0 || double_attr_field(&d, 3, det, s_x_m) < 0 ||
              double_attr_field(&d, 4, det, s_y_m) < 0 || double_attr_field(&d, 5, det, s_confidence) < 0 ||
              pb_sub(b, 12, &d) < 0) ? -1 : 0;
    Py_XDECREF(kind); Py_XDECREF(team);
    buf_free(&d);
    return rc;
}

static int put_segment(Buf *b, PyObject *segment) {
    PyObject *seg = PySequence_Fast(segment, "a line segment: four numbers");
    if (seg == NULL) return -1;
    if (PySequence_Fast_GET_SIZE(seg) != 4) {
        Py_DECREF(seg);
        PyErr_SetString(PyExc_ValueError, "a line segment: four numbers");
        return -1;
    }
    Buf s = {0};
    int rc = 0;
    for (int k = 0; rc == 0 && k < 4; k++) {
        double v = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seg, k));
        rc = (v == -1.0 && PyErr_Occurred()) ? -1 : pb_double(&s, (unsigned)k + 1, v);
    }
    if (rc == 0) rc = pb_sub(b, 13, &s);
    Py_DECREF(seg);
    buf_free(&s);
    return rc;
}

PyObject *encode_inputs(PyObject *mod, PyObject *args) {
    double t_s;
    PyObject *robot, *obs, *packet, *team, *pad, *estop;
    if (!PyArg_ParseTuple(args, "UdOOOOO:encode_inputs", &robot, &t_s, &obs, &packet, &team, &pad, &estop))
        return NULL;
    Buf b = {0};
    PyObject *dets = NULL, *segs = NULL, *odo = NULL, *out = NULL;
    int camera, fallen;
    if (pb_text(&b, 1, robot, 0) < 0 || pb_double(&b, 2, t_s) < 0 || double_attr_field(&b, 3, obs, s_t_s) < 0)
        goto done;
    if ((odo = PyObject_GetAttr(obs, s_odometry)) == NULL) goto done;
    if (double_attr_field(&b, 4, odo, s_x_m) < 0 || double_attr_field(&b, 5, odo, s_y_m) < 0 ||
        double_attr_field(&b, 6, odo, s_theta_rad) < 0 || double_attr_field(&b, 7, obs, s_imu_yaw_rad) < 0 ||
        double_attr_field(&b, 8, obs, s_head_pan_rad) < 0 || double_attr_field(&b, 9, obs, s_head_tilt_rad) < 0)
        goto done;
    if ((camera = truthy_attr(obs, s_camera_frame)) < 0 || pb_uint(&b, 10, (uint64_t)camera, 0) < 0) goto done;
    if ((fallen = truthy_attr(obs, s_fallen)) < 0 || pb_uint(&b, 11, (uint64_t)fallen, 0) < 0) goto done;
    if ((dets = PyObject_GetAttr(obs, s_detections)) == NULL) goto done;
    PyObject *det_seq = PySequence_Fast(dets, "detections: a sequence");
    if (det_seq == NULL) goto done;
    Py_SETREF(dets, det_seq);
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(dets); i++)
        if (put_detection(&b, PySequence_Fast_GET_ITEM(dets, i)) < 0) goto done;
    if ((segs = PyObject_GetAttr(obs, s_line_segments)) == NULL) goto done;
    PyObject *seg_seq = PySequence_Fast(segs, "line segments: a sequence");
    if (seg_seq == NULL) goto done;
    Py_SETREF(segs, seg_seq);
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(segs); i++)
        if (put_segment(&b, PySequence_Fast_GET_ITEM(segs, i)) < 0) goto done;
    if (packet != Py_None) {  /* Packet{data}: present even when the packet did not encode (empty) */
        if (!PyBytes_Check(packet)) { PyErr_SetString(PyExc_TypeError, "encode_inputs: a packet is bytes"); goto done; }
        Buf p = {0};
        int rc = (pb_bytes(&p, 1, PyBytes_AS_STRING(packet), PyBytes_GET_SIZE(packet), 0) < 0 ||
                  pb_sub(&b, 14, &p) < 0) ? -1 : 0;
        buf_free(&p);
        if (rc < 0) goto done;
    }
    if (team != Py_None && pb_text(&b, 15, team, 0) < 0) goto done;
    if (pad != Py_None && pb_text(&b, 16, pad, 0) < 0) goto done;
    if (estop != Py_None) {
        int engaged = PyObject_IsTrue(estop);
        if (engaged < 0 || pb_uint(&b, 17, engaged ? 2 : 1, 0) < 0) goto done;
    }
    out = PyBytes_FromStringAndSize(b.data ? b.data : "", b.len);
done:
    buf_free(&b);
    Py_XDECREF(dets); Py_XDECREF(segs); Py_XDECREF(odo);
    return out;
}

/* ---------------------------------------------------------------- encode_truth */

PyObject *encode_truth(PyObject *mod, PyObject *args) {
    unsigned long long step;
    double t_s;
    PyObject *ball, *gc, *names, *bodies;
    if (!PyArg_ParseTuple(args, "KdOO!O!O!:encode_truth", &step, &t_s, &ball, &PyTuple_Type, &gc, &PyList_Type,
                          &names, &PyList_Type, &bodies))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(bodies);
    if (PyList_GET_SIZE(names) != n || PyTuple_GET_SIZE(gc) != 5) {
        PyErr_SetString(PyExc_ValueError, "encode_truth: names and bodies differ in length, or gc is not 5 numbers");
        return NULL;
    }
    Buf b = {0}, s = {0};
    PyObject *out = NULL;
    if (pb_uint(&b, 1, step, 0) < 0 || pb_double(&b, 2, t_s) < 0) goto done;
    if (float_attr_field(&s, 1, ball, s_x_m) < 0 || float_attr_field(&s, 2, ball, s_y_m) < 0 ||
        float_attr_field(&s, 3, ball, s_vx_mps) < 0 || float_attr_field(&s, 4, ball, s_vy_mps) < 0 ||
        pb_sub(&b, 3, &s) < 0)
        goto done;
    s.len = 0;
    for (int k = 0; k < 5; k++) {
        long v = PyLong_AsLong(PyTuple_GET_ITEM(gc, k));
        if (v == -1 && PyErr_Occurred()) goto done;
        if (v < -2147483648L || v > 2147483647L) {  /* int32 fields, as protobuf's own says */
            PyErr_SetString(PyExc_ValueError, "encode_truth: a GameController number out of the range of int32");
            goto done;
        }
        if (pb_int32(&s, (unsigned)k + 1, v) < 0) goto done;
    }
    if (pb_sub(&b, 4, &s) < 0) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *body = PyList_GET_ITEM(bodies, i);
        int fallen, removed;
        s.len = 0;
        if (pb_text(&s, 1, PyList_GET_ITEM(names, i), 0) < 0 || float_attr_field(&s, 2, body, s_x_m) < 0 ||
            float_attr_field(&s, 3, body, s_y_m) < 0 || float_attr_field(&s, 4, body, s_theta_rad) < 0 ||
            (fallen = truthy_attr(body, s_fallen)) < 0 || pb_uint(&s, 5, (uint64_t)fallen, 0) < 0 ||
            (removed = truthy_attr(body, s_removed)) < 0 || pb_uint(&s, 6, (uint64_t)removed, 0) < 0 ||
            pb_sub(&b, 5, &s) < 0)
            goto done;
    }
    out = PyBytes_FromStringAndSize(b.data ? b.data : "", b.len);
done:
    buf_free(&b); buf_free(&s);
    return out;
}

/* ---------------------------------------------------------------- join_repeated */

PyObject *join_repeated(PyObject *mod, PyObject *args) {
    PyObject *head, *parts;
    unsigned int field;
    if (!PyArg_ParseTuple(args, "SIO!:join_repeated", &head, &field, &PyList_Type, &parts)) return NULL;
    if (field == 0 || field > 0x1FFFFFFF) { PyErr_SetString(PyExc_ValueError, "join_repeated: a field number"); return NULL; }
    Buf b = {0};
    PyObject *out = NULL;
    if (buf_put(&b, PyBytes_AS_STRING(head), PyBytes_GET_SIZE(head)) < 0) goto done;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(parts); i++) {
        PyObject *part = PyList_GET_ITEM(parts, i);
        if (!PyBytes_Check(part)) {
            PyErr_Format(PyExc_TypeError, "join_repeated: part %zd is %.50s, not bytes", i, Py_TYPE(part)->tp_name);
            goto done;
        }
        if (pb_bytes(&b, field, PyBytes_AS_STRING(part), PyBytes_GET_SIZE(part), 1) < 0) goto done;
    }
    out = PyBytes_FromStringAndSize(b.data ? b.data : "", b.len);
done:
    buf_free(&b);
    return out;
}
