/*
 * glpk-probe.c - one GLPK method on an LP read from a free-MPS file (written
 * by `BAECHI_LP_WRITE_MPS=FILE baechi place ... -p m-sct --lp-solver glpk`):
 * status, iterations, objective and the solve's CPU seconds on one line.
 * A measuring tool for docs/limits.md ("m-SCT's LP"), not part of baechi.
 *
 *   glpk-probe FILE.mps METHOD
 *
 * METHOD names words joined by '-': primal or dual (the simplex), scale
 * (glp_scale_prob, GLP_SF_AUTO), pre (GLPK's presolve), or ipt
 * (glp_interior, no crossover).  Starts from GLPK's standard basis: baechi's
 * warm basis (x = 1, ASAP starts) is not in the file; `baechi run --json`
 * gives its iterations (lp.iterations).
 */
#include <glpk.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
    glp_prob *lp;
    glp_smcp parm;
    const char *method;
    clock_t t0;
    int ret;

    if (argc < 3) {
        fprintf(stderr, "usage: glpk-probe FILE.mps primal|dual[-scale][-pre]|ipt\n");
        return 2;
    }
    method = argv[2];
    glp_term_out(GLP_OFF);
    lp = glp_create_prob();
    if (glp_read_mps(lp, GLP_MPS_FILE, NULL, argv[1]) != 0) {
        fprintf(stderr, "glpk-probe: cannot read %s\n", argv[1]);
        return 1;
    }
    if (strstr(method, "scale")) {
        glp_scale_prob(lp, GLP_SF_AUTO);
    }
    glp_std_basis(lp);
    t0 = clock();
    if (strstr(method, "ipt")) {
        glp_iptcp ip;

        glp_init_iptcp(&ip);
        ip.msg_lev = GLP_MSG_OFF;
        ret = glp_interior(lp, &ip);
        printf("glpk %s: returned %d, status %d, objective %.9f, %.2f CPU s\n", method, ret,
               glp_ipt_status(lp), glp_ipt_obj_val(lp), (double)(clock() - t0) / CLOCKS_PER_SEC);
        return 0;
    }
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.meth = strstr(method, "dual") ? GLP_DUALP : GLP_PRIMAL;
    parm.presolve = strstr(method, "pre") ? GLP_ON : GLP_OFF;
    ret = glp_simplex(lp, &parm);
    printf("glpk %s: returned %d, status %d, %d iterations, objective %.9f, %.2f CPU s\n", method,
           ret, glp_get_status(lp), glp_get_it_cnt(lp), glp_get_obj_val(lp),
           (double)(clock() - t0) / CLOCKS_PER_SEC);
    glp_delete_prob(lp);
    return 0;
}
