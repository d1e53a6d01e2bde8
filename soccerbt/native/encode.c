/* soccerbt.native._recording's encoders: a tick's blackboard section, a robot's inputs part,
 * a robot's tick part and a status log's bytes (see _recording.c for the list and the twins). */
#include "recording.h"

enum { KIND_FLOAT = 1, KIND_FLOATS = 2, KIND_POSE = 3, KIND_FALSE = 4, KIND_TRUE = 5, KIND_JSON = 6,
       KIND_POINTS = 8 };

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


PyObject *bb_changes(PyObject *mod, PyObject *args) {
    PyObject *entries, *seqs, *raws, *adapter;
    Py_ssize_t role_index;
    if (!PyArg_ParseTuple(args, "O!O!O!O!n:bb_changes", &PyList_Type, &entries, &PyList_Type, &seqs,
                          &PyList_Type, &raws, &PyList_Type, &adapter, &role_index))
        return NULL;
    if (g_pose_cls == NULL || g_json_text == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "bb_changes: setup() not called");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(entries);
    if (PyList_GET_SIZE(seqs) != n || PyList_GET_SIZE(raws) != n || PyList_GET_SIZE(adapter) != n) {
        PyErr_SetString(PyExc_ValueError, "bb_changes: entries, seqs, raws and adapter differ in length");
        return NULL;
    }
    Buf idx = {0}, wri = {0}, kinds = {0}, floats = {0};
    PyObject *texts = NULL, *result = NULL;
    int role_changed = 0;
    Py_ssize_t n_changes = 0;
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
        PyObject *cur = PyList_GET_ITEM(seqs, i);
        int stamped = PyObject_RichCompareBool(wseq, cur, Py_EQ);
        Py_DECREF(wseq);
        if (stamped < 0) { Py_DECREF(value); goto fail; }
        PyObject *writer = stamped ? slot_get(&g_entry, E_WRITER, entry, s_writer) : (Py_INCREF(PyList_GET_ITEM(adapter, i)), PyList_GET_ITEM(adapter, i));
        if (writer == NULL) { Py_DECREF(value); goto fail; }
        long w = PyLong_AsLong(writer);
        Py_DECREF(writer);
        if (w == -1 && PyErr_Occurred()) { Py_DECREF(value); goto fail; }
        if (w < -32768 || w > 32767) {
            Py_DECREF(value);
            PyErr_SetString(PyExc_OverflowError, "signed short integer is greater than maximum");
            goto fail;
        }
        if (i > 65535) {
            Py_DECREF(value);
            PyErr_SetString(PyExc_OverflowError, "unsigned short is greater than maximum");
            goto fail;
        }
        uint16_t iv = (uint16_t)i;
        int16_t wv = (int16_t)w;
        if (buf_put(&idx, &iv, 2) < 0 || buf_put(&wri, &wv, 2) < 0) { Py_DECREF(value); goto fail; }
        n_changes++;
        PyTypeObject *cls = Py_TYPE(value);
        int rc = 0;
        if (cls == &PyFloat_Type) {
            rc = (buf_u8(&kinds, KIND_FLOAT) < 0 || buf_f32(&floats, PyFloat_AS_DOUBLE(value)) < 0) ? -1 : 0;
        } else if ((PyObject *)cls == g_pose_cls) {
            double x, y, th;
            rc = (float_attr(value, s_x_m, &x) < 0 || float_attr(value, s_y_m, &y) < 0 ||
                  float_attr(value, s_theta_rad, &th) < 0 || buf_u8(&kinds, KIND_POSE) < 0 ||
                  buf_f32(&floats, x) < 0 || buf_f32(&floats, y) < 0 || buf_f32(&floats, th) < 0) ? -1 : 0;
        } else if (cls == &PyBool_Type) {
            rc = buf_u8(&kinds, value == Py_True ? KIND_TRUE : KIND_FALSE);
        } else if (cls == &PyTuple_Type && PyTuple_GET_SIZE(value) > 0 && PyTuple_GET_SIZE(value) < 256
                   && all_floats(value)) {
            Py_ssize_t m = PyTuple_GET_SIZE(value);
            rc = (buf_u8(&kinds, KIND_FLOATS) < 0 || buf_u8(&kinds, (unsigned char)m) < 0) ? -1 : 0;
            for (Py_ssize_t k = 0; rc == 0 && k < m; k++)
                rc = buf_f32(&floats, PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(value, k)));
        } else if (cls == &PyTuple_Type && PyTuple_GET_SIZE(value) > 0 && PyTuple_GET_SIZE(value) < 256
                   && all_points(value)) {
            Py_ssize_t m = PyTuple_GET_SIZE(value);
            rc = (buf_u8(&kinds, KIND_POINTS) < 0 || buf_u8(&kinds, (unsigned char)m) < 0) ? -1 : 0;
            for (Py_ssize_t k = 0; rc == 0 && k < m; k++) {
                PyObject *p = PyTuple_GET_ITEM(value, k);
                rc = (buf_f32(&floats, PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(p, 0))) < 0 ||
                      buf_f32(&floats, PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(p, 1))) < 0) ? -1 : 0;
            }
        } else {
            rc = buf_u8(&kinds, KIND_JSON);
            if (rc == 0 && texts == NULL && (texts = PyList_New(0)) == NULL) rc = -1;
            if (rc == 0) {
                PyObject *text = PyObject_CallOneArg(g_json_text, value);
                if (text == NULL) rc = -1;
                else { rc = PyList_Append(texts, text); Py_DECREF(text); }
            }
        }
        Py_DECREF(value);
        if (rc < 0) goto fail;
    }
    if (n_changes == 0) {
        result = PyBytes_FromStringAndSize("", 0);
    } else {
        PyObject *text = NULL;
        const char *tdata = "";
        Py_ssize_t tlen = 0;
        if (texts != NULL) {
            PyObject *sep = PyUnicode_FromString("\n");
            if (sep == NULL) goto fail;
            PyObject *joined = PyUnicode_Join(sep, texts);
            Py_DECREF(sep);
            if (joined == NULL) goto fail;
            text = PyUnicode_AsUTF8String(joined);
            Py_DECREF(joined);
            if (text == NULL) goto fail;
            tdata = PyBytes_AS_STRING(text);
            tlen = PyBytes_GET_SIZE(text);
        }
        Py_ssize_t n_floats = floats.len / 4;
        if (n_changes > 65535 || kinds.len > 65535 || n_floats > 0xFFFFFFFFLL || tlen > 0xFFFFFFFFLL) {
            Py_XDECREF(text);
            PyErr_SetString(PyExc_OverflowError, "bb_changes: a tick's blackboard section is too large");
            goto fail;
        }
        Py_ssize_t size = 12 + idx.len + wri.len + kinds.len + floats.len + tlen;
        result = PyBytes_FromStringAndSize(NULL, size);
        if (result == NULL) { Py_XDECREF(text); goto fail; }
        unsigned char *o = (unsigned char *)PyBytes_AS_STRING(result);
        uint16_t h16 = (uint16_t)n_changes, k16 = (uint16_t)kinds.len;
        uint32_t f32n = (uint32_t)n_floats, t32 = (uint32_t)tlen;
        memcpy(o, &h16, 2); memcpy(o + 2, &f32n, 4); memcpy(o + 6, &k16, 2); memcpy(o + 8, &t32, 4);
        o += 12;
        const Buf *parts[4] = {&idx, &wri, &kinds, &floats};
        for (int k = 0; k < 4; k++) {
            if (parts[k]->len) memcpy(o, parts[k]->data, parts[k]->len);
            o += parts[k]->len;
        }
        if (tlen) memcpy(o, tdata, tlen);
        Py_XDECREF(text);
    }
    buf_free(&idx); buf_free(&wri); buf_free(&kinds); buf_free(&floats);
    Py_XDECREF(texts);
    PyObject *out = Py_BuildValue("(NO)", result, role_changed ? Py_True : Py_False);
    return out;
fail:
    buf_free(&idx); buf_free(&wri); buf_free(&kinds); buf_free(&floats);
    Py_XDECREF(texts);
    Py_XDECREF(result);
    return NULL;
}

/* ---------------------------------------------------------------- encode_inputs_part */

enum { F_CAMERA = 1, F_FALLEN = 2, F_PACKET = 4, F_TEAM = 8, F_PAD = 16, F_ESTOP = 32, F_HAS_ESTOP = 64 };

static int buf_f64(Buf *b, double v) { return buf_put(b, &v, 8); }

static int buf_f64_attr(Buf *b, PyObject *obj, PyObject *name) {
    double v;
    if (float_attr(obj, name, &v) < 0) return -1;
    return buf_f64(b, v);
}

static int truthy_attr(PyObject *obj, PyObject *name) {
    PyObject *v = PyObject_GetAttr(obj, name);
    if (v == NULL) return -1;
    int t = PyObject_IsTrue(v);
    Py_DECREF(v);
    return t;
}

/* a section's bytes: bytes as they are, text as UTF-8 (new reference) */
static PyObject *section_bytes(PyObject *section) {
    if (PyBytes_Check(section)) { Py_INCREF(section); return section; }
    if (PyUnicode_Check(section)) return PyUnicode_AsUTF8String(section);
    PyErr_SetString(PyExc_TypeError, "an inputs section is bytes or text");
    return NULL;
}

static int team_code(PyObject *team, unsigned char *out) {
    if (team == Py_None) { *out = 0; return 0; }
    PyObject *v = PyObject_GetAttr(team, s_value_attr);
    if (v == NULL) return -1;
    long code = PyLong_AsLong(v);
    Py_DECREF(v);
    if (code == -1 && PyErr_Occurred()) return -1;
    if (code < 0 || code > 254) { PyErr_SetString(PyExc_ValueError, "a team value out of range"); return -1; }
    *out = (unsigned char)(code + 1);
    return 0;
}

static int put_detection(Buf *b, PyObject *det, PyObject *kind_codes) {
    PyObject *kind = PyObject_GetAttr(det, s_kind);
    if (kind == NULL) return -1;
    PyObject *code = PyDict_GetItemWithError(kind_codes, kind);  /* borrowed */
    if (code == NULL && PyErr_Occurred()) { Py_DECREF(kind); return -1; }
    PyObject *team = PyObject_GetAttr(det, s_team);
    if (team == NULL) { Py_DECREF(kind); return -1; }
    unsigned char tc;
    int rc = team_code(team, &tc);
    Py_DECREF(team);
    unsigned char kc = 255;
    if (rc == 0 && code != NULL) {
        long c = PyLong_AsLong(code);
        if (c < 0 || c > 254) { if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a kind code out of range"); rc = -1; }
        else kc = (unsigned char)c;
    }
    if (rc == 0) rc = (buf_u8(b, kc) < 0 || buf_u8(b, tc) < 0 || buf_f64_attr(b, det, s_x_m) < 0 ||
                       buf_f64_attr(b, det, s_y_m) < 0 || buf_f64_attr(b, det, s_confidence) < 0) ? -1 : 0;
    if (rc == 0 && code == NULL) {  /* a kind of no code: its name follows, at most 255 bytes */
        PyObject *text = PyObject_Str(kind);
        PyObject *utf8 = text == NULL ? NULL : PyUnicode_AsUTF8String(text);
        Py_XDECREF(text);
        if (utf8 == NULL) rc = -1;
        else {
            Py_ssize_t n = PyBytes_GET_SIZE(utf8) > 255 ? 255 : PyBytes_GET_SIZE(utf8);
            rc = (buf_u8(b, (unsigned char)n) < 0 || buf_put(b, PyBytes_AS_STRING(utf8), n) < 0) ? -1 : 0;
            Py_DECREF(utf8);
        }
    }
    Py_DECREF(kind);
    return rc;
}

PyObject *encode_inputs_part(PyObject *mod, PyObject *args) {
    double t_s;
    PyObject *obs, *packet, *team, *pad, *estop, *kind_codes;
    if (!PyArg_ParseTuple(args, "dOOOOOO!:encode_inputs_part", &t_s, &obs, &packet, &team, &pad, &estop,
                          &PyDict_Type, &kind_codes))
        return NULL;
    Buf b = {0};
    PyObject *sections[3] = {NULL, NULL, NULL}, *dets = NULL, *segs = NULL, *odo = NULL, *out = NULL;
    int camera = truthy_attr(obs, s_camera_frame);
    if (camera < 0) goto done;
    int fallen = truthy_attr(obs, s_fallen);
    if (fallen < 0) goto done;
    unsigned char flags = (camera ? F_CAMERA : 0) | (fallen ? F_FALLEN : 0);
    PyObject *given[3] = {packet, team, pad};
    const unsigned char bits[3] = {F_PACKET, F_TEAM, F_PAD};
    for (int k = 0; k < 3; k++) {
        if (given[k] == Py_None) continue;
        flags |= bits[k];
        if ((sections[k] = section_bytes(given[k])) == NULL) goto done;
        if (PyBytes_GET_SIZE(sections[k]) > 0xFFFFFFFFLL) { PyErr_SetString(PyExc_OverflowError, "an inputs section too large"); goto done; }
    }
    if (estop != Py_None) {
        int engaged = PyObject_IsTrue(estop);
        if (engaged < 0) goto done;
        flags |= F_HAS_ESTOP | (engaged ? F_ESTOP : 0);
    }
    if ((odo = PyObject_GetAttr(obs, s_odometry)) == NULL) goto done;
    if ((dets = PyObject_GetAttr(obs, s_detections)) == NULL) goto done;
    if ((segs = PyObject_GetAttr(obs, s_line_segments)) == NULL) goto done;
    PyObject *det_seq = PySequence_Fast(dets, "detections: a sequence");
    if (det_seq == NULL) goto done;
    Py_SETREF(dets, det_seq);
    PyObject *seg_seq = PySequence_Fast(segs, "line segments: a sequence");
    if (seg_seq == NULL) goto done;
    Py_SETREF(segs, seg_seq);
    Py_ssize_t n_det = PySequence_Fast_GET_SIZE(dets), n_seg = PySequence_Fast_GET_SIZE(segs);
    if (n_det > 65535 || n_seg > 65535) { PyErr_SetString(PyExc_OverflowError, "too many detections or segments"); goto done; }
    uint16_t nd = (uint16_t)n_det, ns = (uint16_t)n_seg;
    if (buf_u8(&b, flags) < 0 || buf_f64(&b, t_s) < 0 || buf_f64_attr(&b, obs, s_t_s) < 0 ||
        buf_f64_attr(&b, odo, s_x_m) < 0 || buf_f64_attr(&b, odo, s_y_m) < 0 || buf_f64_attr(&b, odo, s_theta_rad) < 0 ||
        buf_f64_attr(&b, obs, s_imu_yaw_rad) < 0 || buf_f64_attr(&b, obs, s_head_pan_rad) < 0 ||
        buf_f64_attr(&b, obs, s_head_tilt_rad) < 0 || buf_put(&b, &nd, 2) < 0 || buf_put(&b, &ns, 2) < 0)
        goto done;
    for (Py_ssize_t i = 0; i < n_det; i++)
        if (put_detection(&b, PySequence_Fast_GET_ITEM(dets, i), kind_codes) < 0) goto done;
    for (Py_ssize_t i = 0; i < n_seg; i++) {
        PyObject *seg = PySequence_Fast(PySequence_Fast_GET_ITEM(segs, i), "a line segment: four numbers");
        if (seg == NULL) goto done;
        if (PySequence_Fast_GET_SIZE(seg) != 4) {
            Py_DECREF(seg);
            PyErr_SetString(PyExc_ValueError, "a line segment: four numbers");
            goto done;
        }
        for (int k = 0; k < 4; k++) {
            double v = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seg, k));
            if ((v == -1.0 && PyErr_Occurred()) || buf_f64(&b, v) < 0) { Py_DECREF(seg); goto done; }
        }
        Py_DECREF(seg);
    }
    for (int k = 0; k < 3; k++) {
        if (sections[k] == NULL) continue;
        uint32_t n = (uint32_t)PyBytes_GET_SIZE(sections[k]);
        if (buf_put(&b, &n, 4) < 0 || buf_put(&b, PyBytes_AS_STRING(sections[k]), n) < 0) goto done;
    }
    out = PyBytes_FromStringAndSize(b.data ? b.data : "", b.len);
done:
    buf_free(&b);
    for (int k = 0; k < 3; k++) Py_XDECREF(sections[k]);
    Py_XDECREF(dets); Py_XDECREF(segs); Py_XDECREF(odo);
    return out;
}

/* ---------------------------------------------------------------- encode_tick */

enum { FLAG_REASONS = 1 };

static int put_f32_checked(Buf *b, double v) {  /* as struct's "f": too large a finite value raises */
    unsigned char p[4];
    if (PyFloat_Pack4(v, (char *)p, 1) < 0) return -1;
    return buf_put(b, p, 4);
}

static int put_f32_attr(Buf *b, PyObject *obj, PyObject *name) {
    double v;
    if (float_attr(obj, name, &v) < 0) return -1;
    return put_f32_checked(b, v);
}

static int put_u16_list(Buf *b, PyObject *list) {
    Py_ssize_t n = PyList_GET_SIZE(list);
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PyList_GET_ITEM(list, i));
        if (v == -1 && PyErr_Occurred()) return -1;
        if (v < 0 || v > 65535) {
            PyErr_SetString(PyExc_OverflowError, "unsigned short out of range");
            return -1;
        }
        uint16_t u = (uint16_t)v;
        if (buf_put(b, &u, 2) < 0) return -1;
    }
    return 0;
}

PyObject *encode_tick(PyObject *mod, PyObject *args) {
    unsigned long tick;
    int root;
    Py_ssize_t n;
    PyObject *command, *uids, *codes, *skipped, *ticked, *changes, *reasons;
    if (!PyArg_ParseTuple(args, "kiOnSSO!OSO:encode_tick", &tick, &root, &command, &n, &uids, &codes,
                          &PyList_Type, &skipped, &ticked, &changes, &reasons))
        return NULL;
    if (tick > 0xFFFFFFFFUL || root < 0 || root > 255 || n < 0 || n > 65535 || PyList_GET_SIZE(skipped) > 65535) {
        PyErr_SetString(PyExc_OverflowError, "encode_tick: a field out of its range");
        return NULL;
    }
    int has_reasons = reasons != Py_None && PyDict_Check(reasons) && PyDict_GET_SIZE(reasons) > 0;
    if (reasons != Py_None && !PyDict_Check(reasons)) {
        PyErr_SetString(PyExc_TypeError, "encode_tick: reasons is a dict or None");
        return NULL;
    }
    Buf tk = {0}, b = {0};
    PyObject *kick = NULL, *out = NULL, *texts = NULL, *joined = NULL, *utf8 = NULL;
    /* the ticked nodes' uids first: their count goes in the head */
    if (ticked != Py_None) {
        if (!PyList_Check(ticked)) { PyErr_SetString(PyExc_TypeError, "encode_tick: ticked is a list of nodes"); goto done; }
        Py_ssize_t m = PyList_GET_SIZE(ticked);
        if (m > 65535) { PyErr_SetString(PyExc_OverflowError, "encode_tick: too many ticked nodes"); goto done; }
        for (Py_ssize_t i = 0; i < m; i++) {
            PyObject *uid = PyObject_GetAttr(PyList_GET_ITEM(ticked, i), s_uid);
            if (uid == NULL) goto done;
            long v = PyLong_AsLong(uid);
            Py_DECREF(uid);
            if (v == -1 && PyErr_Occurred()) goto done;
            if (v < 0 || v > 65535) { PyErr_SetString(PyExc_OverflowError, "unsigned short out of range"); goto done; }
            uint16_t u = (uint16_t)v;
            if (buf_put(&tk, &u, 2) < 0) goto done;
        }
    }
    uint32_t t32 = (uint32_t)tick;
    unsigned char rb = (unsigned char)root, flags = has_reasons ? FLAG_REASONS : 0;
    if (buf_put(&b, &t32, 4) < 0 || buf_u8(&b, rb) < 0 || buf_u8(&b, flags) < 0) goto done;
    if (put_f32_attr(&b, command, s_vx_mps) < 0 || put_f32_attr(&b, command, s_vy_mps) < 0 ||
        put_f32_attr(&b, command, s_vtheta_radps) < 0 || put_f32_attr(&b, command, s_head_pan_rad) < 0 ||
        put_f32_attr(&b, command, s_head_tilt_rad) < 0)
        goto done;
    if ((kick = PyObject_GetAttr(command, s_kick)) == NULL) goto done;
    if (kick == Py_None) {
        if (put_f32_checked(&b, Py_NAN) < 0 || put_f32_checked(&b, Py_NAN) < 0) goto done;
    } else if (put_f32_attr(&b, kick, s_direction_rad) < 0 || put_f32_attr(&b, kick, s_strength) < 0) {
        goto done;
    }
    uint16_t c16[3] = {(uint16_t)n, (uint16_t)PyList_GET_SIZE(skipped), (uint16_t)(tk.len / 2)};
    if (buf_put(&b, c16, 6) < 0 || buf_put(&b, PyBytes_AS_STRING(uids), PyBytes_GET_SIZE(uids)) < 0 ||
        buf_put(&b, PyBytes_AS_STRING(codes), PyBytes_GET_SIZE(codes)) < 0 || put_u16_list(&b, skipped) < 0 ||
        buf_put(&b, tk.data ? tk.data : "", tk.len) < 0)
        goto done;
    if (has_reasons) {  /* u16 n, u32 text bytes, n u16 uids, the texts joined by newlines */
        Py_ssize_t m = PyDict_GET_SIZE(reasons);
        if (m > 65535) { PyErr_SetString(PyExc_OverflowError, "encode_tick: too many reasons"); goto done; }
        Buf ru = {0};
        PyObject *key, *value;
        Py_ssize_t pos = 0;
        if ((texts = PyList_New(0)) == NULL) goto done;
        while (PyDict_Next(reasons, &pos, &key, &value)) {
            long v = PyLong_AsLong(key);
            if ((v == -1 && PyErr_Occurred()) || v < 0 || v > 65535) {
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_OverflowError, "unsigned short out of range");
                buf_free(&ru);
                goto done;
            }
            uint16_t u = (uint16_t)v;
            if (buf_put(&ru, &u, 2) < 0 || PyList_Append(texts, value) < 0) { buf_free(&ru); goto done; }
        }
        PyObject *sep = PyUnicode_FromString("\n");
        if (sep == NULL) { buf_free(&ru); goto done; }
        joined = PyUnicode_Join(sep, texts);
        Py_DECREF(sep);
        if (joined == NULL || (utf8 = PyUnicode_AsUTF8String(joined)) == NULL) { buf_free(&ru); goto done; }
        if (PyBytes_GET_SIZE(utf8) > 0xFFFFFFFFLL) { buf_free(&ru); PyErr_SetString(PyExc_OverflowError, "reasons too long"); goto done; }
        uint16_t n16 = (uint16_t)m;
        uint32_t l32 = (uint32_t)PyBytes_GET_SIZE(utf8);
        int rc = (buf_put(&b, &n16, 2) < 0 || buf_put(&b, &l32, 4) < 0 || buf_put(&b, ru.data ? ru.data : "", ru.len) < 0 ||
                  buf_put(&b, PyBytes_AS_STRING(utf8), PyBytes_GET_SIZE(utf8)) < 0) ? -1 : 0;
        buf_free(&ru);
        if (rc < 0) goto done;
    }
    if (buf_put(&b, PyBytes_AS_STRING(changes), PyBytes_GET_SIZE(changes)) < 0) goto done;
    out = PyBytes_FromStringAndSize(b.data, b.len);
done:
    buf_free(&tk); buf_free(&b);
    Py_XDECREF(kick); Py_XDECREF(texts); Py_XDECREF(joined); Py_XDECREF(utf8);
    return out;
}

/* ---------------------------------------------------------------- split_status_log */

PyObject *split_status_log(PyObject *mod, PyObject *log) {
    if (!PyList_Check(log)) {
        PyErr_SetString(PyExc_TypeError, "split_status_log: a list");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(log) / 3;
    PyObject *uids = PyBytes_FromStringAndSize(NULL, 2 * n);
    PyObject *codes = PyBytes_FromStringAndSize(NULL, 2 * n);
    if (uids == NULL || codes == NULL) { Py_XDECREF(uids); Py_XDECREF(codes); return NULL; }
    uint16_t *u = (uint16_t *)PyBytes_AS_STRING(uids);
    unsigned char *c = (unsigned char *)PyBytes_AS_STRING(codes);
    /* the uids first, then the codes: the twin's order (array("H") of the uids, then bytes()) */
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PyList_GET_ITEM(log, 3 * i));
        if (v == -1 && PyErr_Occurred()) { Py_DECREF(uids); Py_DECREF(codes); return NULL; }
        if (v < 0 || v > 65535) {
            Py_DECREF(uids); Py_DECREF(codes);
            PyErr_SetString(PyExc_OverflowError, v < 0 ? "unsigned short is less than minimum"
                                                       : "unsigned short is greater than maximum");
            return NULL;
        }
        u[i] = (uint16_t)v;
    }
    for (Py_ssize_t k = 1; k <= 2; k++) {
        for (Py_ssize_t i = 0; i < n; i++) {
            long v = PyLong_AsLong(PyList_GET_ITEM(log, 3 * i + k));
            if (v == -1 && PyErr_Occurred()) { Py_DECREF(uids); Py_DECREF(codes); return NULL; }
            if (v < 0 || v > 255) {
                Py_DECREF(uids); Py_DECREF(codes);
                PyErr_SetString(PyExc_ValueError, "bytes must be in range(0, 256)");
                return NULL;
            }
            c[(k - 1) * n + i] = (unsigned char)v;
        }
    }
    if (PyList_SetSlice(log, 0, PyList_GET_SIZE(log), NULL) < 0) { Py_DECREF(uids); Py_DECREF(codes); return NULL; }
    return Py_BuildValue("(NNn)", uids, codes, n);
}

/* ---------------------------------------------------------------- join_parts */

PyObject *join_parts(PyObject *mod, PyObject *parts) {
    if (!PyList_Check(parts)) {
        PyErr_SetString(PyExc_TypeError, "join_parts: a list of bytes");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(parts), total = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *part = PyList_GET_ITEM(parts, i);
        if (!PyBytes_Check(part)) {
            PyErr_Format(PyExc_TypeError, "join_parts: part %zd is %.50s, not bytes", i, Py_TYPE(part)->tp_name);
            return NULL;
        }
        if ((uint64_t)PyBytes_GET_SIZE(part) > 0xFFFFFFFFu) {
            PyErr_SetString(PyExc_OverflowError, "join_parts: a part of 4 GiB or more");
            return NULL;
        }
        total += 4 + PyBytes_GET_SIZE(part);
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, total);
    if (out == NULL) return NULL;
    unsigned char *o = (unsigned char *)PyBytes_AS_STRING(out);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *part = PyList_GET_ITEM(parts, i);
        uint32_t len = (uint32_t)PyBytes_GET_SIZE(part);
        o[0] = (unsigned char)len; o[1] = (unsigned char)(len >> 8);   /* u32 little-endian, as "<I" */
        o[2] = (unsigned char)(len >> 16); o[3] = (unsigned char)(len >> 24);
        memcpy(o + 4, PyBytes_AS_STRING(part), len);
        o += 4 + len;
    }
    return out;
}
